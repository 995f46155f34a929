import Dispatch
import Foundation
import NIOCore
import VoiceMedia
import VoiceSIP

// A call's media: started, updated and stopped off the loop, the once-a-second watchdog and
// quality warnings, and the stats.
extension CallCore {
    /// Carries out the media lifecycle's actions (``CallMediaLifecycle``).
    func runMedia(_ actions: [CallMediaLifecycle.Action]) {
        for action in actions {
            switch action {
            case .start(let muted):
                guard let negotiated else { continue }
                startMedia(negotiated, muted: muted)
            case .answerEarlyMedia:
                guard let media, let answer = pendingAnswer else { continue }
                if answer != negotiated { applyMedia(answer) }
                media.isMuted = call.isMuted
            case .watch:
                watchMedia()
            case .connect:
                run(machine.answered(now: now))
            case .fail:
                // The 2xx and ACK are through: hang the dialog up too, or the peer would stay
                // connected to a call that has no media.
                run(machine.mediaFailed(stateError(.mediaConnectionFailed(mediaFailure ?? "media did not start")), now: now))
            case .stop:
                stopMedia()
            case .deliverWaitingCallbacks:
                let waiting = callbacksAwaitingMediaStop
                callbacksAwaitingMediaStop = []
                for callback in waiting { deliver(callback) }
                run([])
            }
        }
    }

    /// The peer sent early media (183 with SDP): the media starts now, before the answer, and
    /// plays what the peer sends (a ringback, an announcement). It sends silence until the
    /// call is answered: the peer's media path (a NAT, a gateway latching onto the first
    /// packet) opens, but nothing the user says leaves before the answer.
    func earlyMediaArrived(_ negotiated: SDPNegotiatedMedia) {
        guard !machine.isDisconnected, mediaLifecycle.state == .idle else { return }
        self.negotiated = negotiated
        runMedia(mediaLifecycle.earlyMediaArrived())
    }

    /// Our 200 OK answered the caller's offer: the media starts now, before the ACK (see
    /// ``CallMediaLifecycle/answerSent()``); the call connects on the ACK, in ``answered(_:)``.
    func answerSent(_ negotiated: SDPNegotiatedMedia) {
        guard !machine.isDisconnected, mediaLifecycle.state == .idle else { return }
        self.negotiated = negotiated
        runMedia(mediaLifecycle.answerSent())
    }

    /// The call was answered with `negotiated`: the media starts, or the stream started on
    /// early media goes on with the final answer (the one the 183 carried, RFC 3261 §13.2.1),
    /// now sending the user's audio. The call connects once the media runs.
    func answered(_ negotiated: SDPNegotiatedMedia) {
        pendingAnswer = negotiated
        if mediaLifecycle.state == .idle { self.negotiated = negotiated }
        runMedia(mediaLifecycle.answered())
    }

    /// Creates the call's media and starts it on ``mediaQueue``; ``mediaStarted(_:)`` or
    /// ``mediaFailed(_:_:)`` follows on the loop.
    private func startMedia(_ negotiated: SDPNegotiatedMedia, muted: Bool) {
        guard media == nil, let handle, let info = client.agent.callInfo(handle) else {
            runMedia(mediaLifecycle.unavailable())
            return
        }
        call.update { $0.details.codec = negotiated.codec.name }
        publish(CallInsights.codec(negotiated.codec.name, callSid: sid))
        let client = self.client
        let request = CallMediaRequest(
            localHost: client.mediaBindHost, localPort: info.mediaPort, reserved: info.reservedMedia,
            audioDevice: client.sharedAudioDevice(audioDevice ?? client.audioDevice), engine: client.configuration.mediaEngine,
            enableDSCP: enableDSCP, localICE: info.localICE, certificate: client.dtlsIdentity.certificate,
            relay: client.agent.takeMediaRelay(handle))
        let media = client.mediaFactory.make(request) { [weak self] event in
            guard let self, event.concernsTheCall else { return }
            client.onLoop { self.mediaEvent(event) }
        }
        media.isMuted = muted || call.isMuted
        self.media = media
        applyAudioProcessing()
        // DTLS-SRTP media runs once ICE has a path and the handshake keyed it: the call connects
        // then (``mediaPathConnected``), as a WebRTC peer connection does.
        let waitsForPath: Bool
        if case .dtlsSRTP = negotiated.encryption { waitsForPath = true } else { waitsForPath = false }
        onMediaQueue {
            do throws(AudioStreamError) {
                try media.apply(negotiated)
                if !waitsForPath { client.onLoop { self.mediaStarted(media) } }
            } catch {
                client.onLoop { self.mediaFailed(media, error) }
            }
        }
    }

    /// The media runs: the call connects (if answered) and the watchdog starts.
    func mediaStarted(_ started: any CallMedia) {
        guard media === started, !machine.isDisconnected else { return }
        runMedia(mediaLifecycle.started())
    }

    /// Watches the running media: liveness once a second, levels five times.
    private func watchMedia() {
        guard let media, let negotiated else { return }
        trackMedia(.started(localAddress: "\(media.localHost):\(media.localPort)", remoteAddress: "\(negotiated.remoteRTP)"))
        lastMediaPacketAt = now
        liveness = CallMediaLiveness(startedAt: now, silenceThreshold: machine.configuration.mediaSilenceThreshold)
        ticker = eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in self.tick() }
        levelTicker = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .milliseconds(200)) { _ in
            self.sampleLevels()
        }
    }

    func mediaFailed(_ failed: any CallMedia, _ error: AudioStreamError) {
        guard media === failed, !machine.isDisconnected else { return }
        client.logger.error("media for \(sid) failed to start: \(error)")
        trackMedia(.failed)
        mediaFailure = "\(error)"
        runMedia(mediaLifecycle.failedToStart())
    }

    func applyMedia(_ negotiated: SDPNegotiatedMedia) {
        self.negotiated = negotiated
        if let media {
            let sid = self.sid
            let logger = client.logger
            onMediaQueue {
                do {
                    try media.apply(negotiated)
                } catch {
                    logger.warning("media update for \(sid) failed: \(error)")
                }
            }
        }
        // Either side's hold (sendonly, recvonly, inactive) may stop the peer's media.
        run(machine.mediaExpectationChanged(expected: negotiated.direction == .sendrecv, now: now))
    }

    /// The call no longer needs its media: it stops on ``mediaQueue`` (after any start or
    /// update still queued there), and ``mediaStopped()`` follows on the loop.
    func releaseMedia() {
        call.stopRecording()
        if let stats = media?.stats { metricsCursor.report(stats, to: client.metrics) }
        if let rest = metricsBatch.flush(callSid: sid.isEmpty ? nil : sid, at: Date()) { publish(rest) }
        trackMedia(.closed)
        ticker?.cancel()
        ticker = nil
        levelTicker?.cancel()
        levelTicker = nil
        runMedia(mediaLifecycle.release())
    }

    private func stopMedia() {
        guard let media else {
            runMedia(mediaLifecycle.stopped())
            return
        }
        self.media = nil
        let client = self.client
        onMediaQueue {
            media.stop()
            client.onLoop { self.mediaStopped() }
        }
    }

    /// The media has stopped (sockets closed, device released): what waited for it goes on.
    func mediaStopped() {
        runMedia(mediaLifecycle.stopped())
    }

    /// Once a second: the media watchdog and the quality warnings.
    func tick() {
        guard let stats = media?.stats, !machine.isDisconnected else { return }
        metricsCursor.report(stats, to: client.metrics)
        if stats.packetsReceived > lastPacketsReceived {
            lastPacketsReceived = stats.packetsReceived
            lastMediaPacketAt = now
            trackMedia(.mediaReceived)
        }
        let evidence = liveness.observe(
            packetsReceived: stats.packetsReceived, peerReports: stats.peerReports,
            remoteSenderPacketCount: stats.remoteSenderPacketCount, now: now)
        run(machine.tick(now: now, lastMediaPacketAt: [evidence, lastMediaPacketAt].compactMap { $0 }.max()))
        observeMediaPath(stats)
        pollOutputVolume()
        guard machine.isConnected else { return }
        let sample = sampler.sample(from: stats, isMuted: call.isMuted, isOnHold: held)
        if let batch = metricsBatch.add(stats, quality: sample, at: Date(), callSid: sid.isEmpty ? nil : sid) { publish(batch) }
        emit(qualityEvents.addNetworkSample(rttMs: sample.rttMs, jitterMs: sample.jitterMs, lossFraction: sample.packetsLostFraction))
        guard let change = quality.add(sample, at: Date(), callSid: sid) else { return }
        for event in change.insightsEvents { publish(event) }
        let current = change.current
        let previous = change.previous
        call.update { $0.warnings = current }
        let call = self.call
        announce(.qualityWarnings(current: current, previous: previous)) {
            $0.call(call, didReceiveQualityWarnings: current, previousWarnings: previous)
        }
    }

    func statsReport() -> CallStatsReport? {
        guard let stats = media?.stats else { return nil }
        var report = CallStatsReport(streamStats: stats, callSid: sid.isEmpty ? nil : sid)
        if let hub = deviceHub { report.audioProcessing = CallAudioProcessingStats(hub.processing.status) }
        return report
    }

    /// Runs a media job on the call's media queue, or at once where the client says so (tests
    /// on an embedded event loop, whose null media does no I/O).
    func onMediaQueue(_ job: @escaping @Sendable () -> Void) {
        if client.runsMediaJobsInline { job() } else { mediaQueue.async(execute: job) }
    }
}
