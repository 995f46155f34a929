import Foundation
import Synchronization
import VoiceSupport

/// A recording in progress: a ``RecordingTap`` the media thread (or a conference room's clock
/// thread) writes into without waiting, and a writer thread of ordinary priority that moves
/// what arrives to the file every 20 ms. A write that fails (a full disk) ends the recording
/// with an ``AudioRecordingError``; the call is not touched. `completion` gets the summary
/// once, on the writer thread, when the recording ends.
package final class AudioRecording: @unchecked Sendable {
    // @unchecked: `file` is made in init and used by the writer thread alone after `start()`.
    package let tap: RecordingTap
    private var file: AudioRecordingFile?
    private let layout: AudioRecordingOptions.Layout
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let completion: @Sendable (AudioRecordingSummary) -> Void
    package let path: String
    /// An error the recording ends with before it runs (``cancel(reason:)``).
    private let preset = Locked<AudioRecordingError?>(nil)

    /// Most samples per direction moved in one pass; a direction this far ahead of the other
    /// (the other stalled, on hold without playout) is written with silence beside it.
    static let maximumSkew = 24_000

    /// Creates the file at `path` (on the calling thread: it may block briefly); nothing is
    /// written until ``start()``.
    /// - Throws: ``AudioRecordingError`` `.cannotCreateFile`.
    package init(
        path: String, options: AudioRecordingOptions, twoDirections: Bool,
        completion: @escaping @Sendable (AudioRecordingSummary) -> Void
    ) throws(AudioRecordingError) {
        let channels = twoDirections && options.layout == .stereo ? 2 : 1
        file = try AudioRecordingFile(path: path, format: options.format, channels: channels)
        layout = twoDirections ? options.layout : .mixed
        tap = RecordingTap(hasTwoDirections: twoDirections)
        self.completion = completion
        self.path = path
    }

    /// Starts the writer thread.
    package func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "voice-recording"
        thread.start()
    }

    /// Ends the recording: what the tap holds is written, the file is finished, `completion` runs.
    package func stop() { stopRequested.store(true, ordering: .releasing) }

    /// Ends a recording that could not run (nothing to record): the file is finished empty and
    /// `completion` gets ``AudioRecordingError/Kind/unavailable`` with `reason`.
    package func cancel(reason: String) {
        preset.withLock { $0 = AudioRecordingError(.unavailable, path: path, reason: reason) }
        stop()
        start()
    }

    private func run() {
        let capacity = tap.sent.capacity
        let first = UnsafeMutableBufferPointer<Int16>.allocate(capacity: capacity)
        let second = UnsafeMutableBufferPointer<Int16>.allocate(capacity: capacity)
        let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 2 * capacity)
        defer {
            first.deallocate()
            second.deallocate()
            out.deallocate()
        }
        var frames = 0
        var failure = preset.withLock { $0 }
        while failure == nil {
            let stopping = stopRequested.load(ordering: .acquiring)
            do throws(AudioRecordingError) {
                try drain(final: stopping, first, second, out, written: &frames)
            } catch {
                failure = error
            }
            if stopping { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        do throws(AudioRecordingError) {
            try file?.close()
        } catch {
            failure = failure ?? error
        }
        file = nil
        completion(
            AudioRecordingSummary(
                path: path, seconds: Double(frames) / 48_000, droppedSamples: tap.droppedSamples.load(ordering: .relaxed), error: failure))
    }

    /// Frames per write: a write that fails (a full disk) loses at most this much from the
    /// count of what was written, however far the writer thread fell behind.
    static let framesPerWrite = 960

    /// Writes what both directions have in common (all of it when `final`, or when one runs
    /// ``maximumSkew`` ahead: the other gets silence), ``framesPerWrite`` at a time, adding the
    /// frames written to `written` as each write succeeds.
    private func drain(
        final: Bool, _ first: UnsafeMutableBufferPointer<Int16>, _ second: UnsafeMutableBufferPointer<Int16>,
        _ out: UnsafeMutableBufferPointer<Int16>, written: inout Int
    ) throws(AudioRecordingError) {
        let a = tap.sent.availableToRead
        let b = tap.received.availableToRead
        var n = tap.hasTwoDirections ? min(a, b) : a
        if tap.hasTwoDirections, final || max(a, b) - n > Self.maximumSkew { n = max(a, b) }
        guard n > 0 else { return }
        let gotA = tap.sent.read(into: UnsafeMutableBufferPointer(rebasing: first[0..<n]))
        if gotA < n { UnsafeMutableBufferPointer(rebasing: first[gotA..<n]).update(repeating: 0) }
        var samples = n
        if tap.hasTwoDirections {
            let gotB = tap.received.read(into: UnsafeMutableBufferPointer(rebasing: second[0..<n]))
            if gotB < n { UnsafeMutableBufferPointer(rebasing: second[gotB..<n]).update(repeating: 0) }
            switch layout {
            case .stereo:
                for i in 0..<n {
                    out[2 * i] = first[i]
                    out[2 * i + 1] = second[i]
                }
                samples = 2 * n
            case .mixed:
                for i in 0..<n { out[i] = Int16(clamping: Int32(first[i]) + Int32(second[i])) }
            }
        } else {
            _ = UnsafeMutableBufferPointer(rebasing: out[0..<n]).update(fromContentsOf: first[0..<n])
        }
        let channels = samples / n
        var frame = 0
        while frame < n {
            let count = min(Self.framesPerWrite, n - frame)
            try file?.append(UnsafeBufferPointer(rebasing: out[(frame * channels)..<((frame + count) * channels)]))
            frame += count
            written += count
        }
    }
}
