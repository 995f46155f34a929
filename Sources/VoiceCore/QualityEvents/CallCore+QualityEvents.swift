import VoiceRTP
import Foundation
import VoiceMedia

// The Sinch call-quality events of a call: fed from the media's stats (levels five times a
// second, the network and the media path once a second) and the device's output volume, and
// delivered to the delegate and the event stream.
extension CallCore {
    /// Whether the peer should be sending now: the call is established and neither side holds.
    var peerExpectedToSend: Bool {
        hasConnected && !machine.isDisconnected && !held && (negotiated?.direction ?? .sendrecv) == .sendrecv
    }

    /// Five times a second: each direction's level (nil while it is not measured: outbound when
    /// muted or held, inbound when held).
    func sampleLevels() {
        guard machine.isConnected, let stats = media?.stats else { return }
        noteMediaEstablished(stats)
        let inbound = held ? nil : stats.outputLevel
        let outbound = held || call.isMuted ? nil : stats.inputLevel
        emit(qualityEvents.addLevels(inbound: inbound, outbound: outbound, now: now))
    }

    /// The first time audio is seen flowing both ways: the peer's RTP arrived and its RTCP
    /// reported receiving ours.
    func noteMediaEstablished(_ stats: AudioStreamStats) {
        guard !mediaEstablished, hasConnected, stats.packetsReceived > 0, stats.reportsAboutUs > 0 else { return }
        mediaEstablished = true
        let call = self.call
        let at = Date()
        announce(.mediaEstablished, update: { $0.details.mediaEstablishedAt = at }) { $0.callDidEstablishMedia(call) }
    }

    /// Once a second: whether authenticated RTP still arrives while it should.
    func observeMediaPath(_ stats: AudioStreamStats) {
        guard hasConnected else { return }
        emit(qualityEvents.observeMedia(packetsReceived: stats.packetsReceived, expected: peerExpectedToSend, now: now))
    }

    /// Once a second: the output volume of the call's device, read on the media queue (a mixer
    /// read is a round trip to the sound server), judged on the loop.
    func pollOutputVolume() {
        guard machine.isConnected, let device = currentAudioDevice else { return }
        let client = self.client
        onMediaQueue {
            let volume = device.outputVolume
            client.onLoop {
                guard !self.machine.isDisconnected else { return }
                self.emit(self.qualityEvents.observeOutputVolume(volume))
            }
        }
    }

    /// Delivers events to the delegate and the event stream, in order.
    func emit(_ events: [CallQualityWarningEvent]) {
        let call = self.call
        for event in events {
            client.logger.info("call quality event for \(sid): \(event)")
            announce(.callQualityEvent(event)) { $0.callDidEmitCallQualityEvent(call, event: event) }
        }
    }
}
