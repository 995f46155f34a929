import Dispatch
import VoiceSupport
import VoiceMedia

// Ringback and busy tones of an outgoing call, played on a port of the call's device, started
// and stopped on the media queue (starting may open the device).
extension CallCore {
    /// The callee rings without early media: ringback, if configured.
    func startRingback() {
        // Early media plays instead (RFC 3960): a 180 after a 183 with SDP starts no tone.
        guard ringback == nil, !mediaLifecycle.isEarly, let player = tonePlayer(client.configuration.progressTones?.ringback) else { return }
        ringback = player
        let logger = client.logger
        onMediaQueue {
            do throws(AudioDeviceError) {
                try player.start()
            } catch {
                logger.warning("ringback tone: \(error)")
            }
        }
    }

    /// A player for `tone` on a port of the call's device; nil for a callee, no tone or no device.
    private func tonePlayer(_ tone: CallProgressTones.Tone?) -> ProgressTonePlayer? {
        guard role == .caller, let tone, let port = client.sharedAudioDevice(currentAudioDevice) else { return nil }
        return ProgressTonePlayer(tone: tone.progressTone, device: port)
    }

    /// The call was answered, sent early media or ended: the ringback stops.
    func stopRingback() {
        guard let player = ringback else { return }
        ringback = nil
        onMediaQueue { player.stop() }
    }

    /// The callee was busy or rejected the call: a busy tone for a while, if configured. It
    /// outlives the call.
    func playBusyTone() {
        guard let tones = client.configuration.progressTones, let player = tonePlayer(tones.busy) else { return }
        let duration = MediaTime(tones.busyDuration)
        let logger = client.logger
        onMediaQueue {
            do throws(AudioDeviceError) {
                try player.start()
            } catch {
                logger.warning("busy tone: \(error)")
            }
        }
        // Timed on the call's loop (its clock: virtual time in tests), stopped on the media queue
        // (stopping a device waits for its thread).
        eventLoop.scheduleTask(in: .nanoseconds(duration.nanoseconds)) { self.onMediaQueue { player.stop() } }
    }
}
