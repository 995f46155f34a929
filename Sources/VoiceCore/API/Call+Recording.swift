import VoiceMedia

extension Call {
    /// Records both directions of the call to `path`, from now until ``stopRecording()`` or the
    /// call's end: in stereo, what this side sent on the left and what it received on the
    /// right (or mixed into one channel), as WAV or Ogg Opus (by default chosen by the name:
    /// `.opus` or `.ogg` is Ogg Opus).
    ///
    /// ```swift
    /// try call.startRecording(to: "/var/spool/calls/\(call.uuid).opus") { summary in
    ///     print(summary.seconds, summary.droppedSamples, summary.error as Any)
    /// }
    /// ```
    ///
    /// The audio is taken on the media thread without waiting and written on a thread of its
    /// own; samples the writer could not keep up with are counted in the summary, never
    /// hidden. A full disk ends the recording with `AudioRecordingError.Kind.writeFailed`;
    /// the call goes on. `completion` runs once, when the recording ends, on the call's
    /// delegate queue.
    /// - Throws: `AudioRecordingError`: `.cannotCreateFile` for a path that cannot be
    ///   created, `.unavailable` while the call is already recording or has ended.
    public func startRecording(
        to path: String, options: AudioRecordingOptions? = nil,
        completion: @escaping @Sendable (AudioRecordingSummary) -> Void = { _ in }
    ) throws(AudioRecordingError) {
        guard let core = core.withLock({ $0 }), state != .disconnected else {
            throw AudioRecordingError(.unavailable, path: path, reason: "the call has ended")
        }
        let queue = delegateQueue
        let slot = recordingSlot
        let recording = try AudioRecording(path: path, options: options ?? AudioRecordingOptions(path: path), twoDirections: true) { summary in
            slot.withLock { if $0?.path == summary.path { $0 = nil } }
            queue.async { completion(summary) }
        }
        let claimed = recordingSlot.withLock { current -> Bool in
            guard current == nil else { return false }
            current = recording
            return true
        }
        guard claimed else {
            recording.cancel(reason: "the call is already being recorded")
            throw AudioRecordingError(.unavailable, path: path, reason: "the call is already being recorded")
        }
        core.client.onLoop {
            guard let stream = core.media?.stream else {
                slot.withLock { if $0 === recording { $0 = nil } }
                recording.cancel(reason: "the call has no media")
                return
            }
            stream.setRecording(recording.tap)
            recording.start()
        }
    }

    /// Ends the recording started with ``startRecording(to:options:completion:)``: what was
    /// taken is written and the file finished. Idempotent.
    public func stopRecording() {
        guard let recording = recordingSlot.withLock({ r -> AudioRecording? in defer { r = nil }; return r }) else { return }
        recording.stop()
        guard let core = core.withLock({ $0 }) else { return }
        core.client.onLoop { core.media?.stream?.setRecording(nil) }
    }
}
