import Foundation
import VoiceMedia

extension AudioStreamEvent {
    /// Whether the call acts on it (xruns and suspends are only counted in the stats, and
    /// RTCP BYE and telephone-events have their own paths).
    var concernsTheCall: Bool {
        switch self {
        case .audioDevice(.interrupted), .audioDevice(.resumed), .audioDevice(.failed), .mediaPathFailed, .mediaPathConnected,
            .consentLost, .consentRestored, .telephoneEvent, .eventsLost:
            return true
        default: return false
        }
    }
}

// A call's audio interruptions (seed 004 on Linux): the device hub reports a direction
// interrupted or resumed; the call tells the app when its audio as a whole goes off and comes
// back, and never before it has connected.
extension CallCore {
    /// An event from the call's media, on the loop.
    func mediaEvent(_ event: AudioStreamEvent) {
        if case .mediaPathFailed(let why) = event { return mediaPathFailed(why) }
        if case .mediaPathConnected(let path, let security) = event { return mediaPathConnected(path: path, security: security) }
        if case .consentLost = event { return mediaPathConsent(lost: true) }
        if case .consentRestored = event { return mediaPathConsent(lost: false) }
        if case .telephoneEvent(let code, let duration) = event { return telephoneEventReceived(code: code, duration: duration) }
        if case .eventsLost(let count) = event {
            // The stream's event queue overflowed (a handler stalled for thousands of events):
            // what was lost may have been digits or a BYE, so it is said loudly.
            return client.logger.error("call \(sid): \(count) media events were lost (the event queue was full)")
        }
        guard !machine.isDisconnected, case .audioDevice(let deviceEvent) = event else { return }
        switch deviceEvent {
        case .interrupted(let capture, let error):
            if capture { captureInterrupted = true } else { renderInterrupted = true }
            interruptionError = error
        case .failed(let error):
            captureInterrupted = true
            interruptionError = error
        case .resumed(let capture):
            if capture { captureInterrupted = false } else { renderInterrupted = false }
        case .xrunRecovered, .suspendRecovered:
            return
        }
        reportAudioInterruption()
    }

    /// Moves the call's audio to `device` (its own port on the device's shared hub) on the
    /// media queue; `completion` gets the device error, if the new device did not start.
    func switchAudioDevice(to device: any AudioDevice, completion: (@Sendable (AudioDeviceError?) -> Void)?) {
        guard !machine.isDisconnected, let media else {
            delegateQueue.async { completion?(AudioDeviceError(kind: .ioFailed, message: "the call has no media")) }
            return
        }
        let port = client.sharedAudioDevice(device)
        let queue = delegateQueue
        let client = self.client
        onMediaQueue {
            var failure: AudioDeviceError?
            do throws(AudioStreamError) {
                if let port { try media.switchAudioDevice(to: port) }
            } catch {
                if case .audioDevice(let e) = error {
                    failure = e
                } else {
                    failure = AudioDeviceError(kind: .ioFailed, message: "\(error)")
                }
            }
            let interrupted = media.stream?.interruptedDirections
            let error = failure
            client.onLoop {
                // The new device's own report is the truth now; the old one is stopped.
                if error == nil {
                    self.currentAudioDevice = device
                    self.applyAudioProcessing()
                }
                if let interrupted, self.media === media {
                    (self.captureInterrupted, self.renderInterrupted) = interrupted
                    self.reportAudioInterruption()
                }
                queue.async { completion?(error) }
            }
        }
    }

    /// Announces the start or end of the interruption when that changed since the last report.
    /// Before the call has connected it waits: `deliver(.didConnect)` calls this again.
    func reportAudioInterruption() {
        guard hasConnected, !machine.isDisconnected else { return }
        let current = interruptionError.flatMap { error in
            captureInterrupted || renderInterrupted
                ? CallAudioInterruption(capture: captureInterrupted, render: renderInterrupted, error: error) : nil
        }
        guard (current == nil) != (reportedInterruption == nil) else {
            if let current { call.update { $0.audioInterruption = current } }
            return
        }
        reportedInterruption = current
        let call = self.call
        if let current {
            client.logger.warning("audio of \(sid) interrupted: \(current.error)")
            publish(.audioInterruption(.began, interruption: current, callSid: sid.isEmpty ? nil : sid, at: Date()))
            announce(.audioInterruptionBegan(current), update: { $0.audioInterruption = current }) {
                $0.call(call, audioInterruptionDidBegin: current)
            }
        } else {
            client.logger.info("audio of \(sid) resumed")
            publish(.audioInterruption(.ended, interruption: nil, callSid: sid.isEmpty ? nil : sid, at: Date()))
            announce(.audioInterruptionEnded, update: { $0.audioInterruption = nil }) { $0.callAudioInterruptionDidEnd(call) }
        }
    }
}
