import VoiceBytes
import VoiceSupport

/// A device that captures from a WAV or raw PCM file and renders into a WAV file.
///
/// Format policy: the device does not resample. ``captureFormat`` is the input file's own rate and
/// channel count (10 ms buffers), so the stream sees exactly what the file holds and must adapt
/// (or refuse) a different rate; pass `requiredCaptureSampleRate` to have the initializer reject
/// a mismatching file with ``AudioDeviceError/Kind/unsupportedFormat`` instead. Render audio is
/// written in ``renderFormat`` (default 48 kHz mono), which is also the WAV's header format.
///
/// The input file is read into memory at initialization; the output WAV is created (truncated)
/// by ``startRendering(context:)``, streamed while rendering and finalized by ``stopRendering()``.
/// With ``SoftwareAudioPacing/realTime`` the writes run on the shared clock thread, so keep output
/// on local storage. Threading: thread-safe; callbacks run on the pacing thread.
public final class FileAudioDevice: AudioDevice, @unchecked Sendable {
    /// Where captured audio comes from.
    public enum Input: Sendable, Hashable {
        /// A 16-bit PCM WAV file; its header gives the format.
        case wav(path: String)
        /// Headerless signed 16-bit little-endian interleaved PCM in the given format.
        case raw(path: String, sampleRate: Int, channels: Int)
    }

    /// What capture does after the last sample of the input.
    public enum EndOfInput: Sendable, Hashable {
        /// Start again from the first sample.
        case loop
        /// Deliver silence (free-running capture ends instead).
        case silence
    }

    /// Format of captured audio (the input file's), or nil without input.
    public let captureFormat: AudioFormat?
    /// Format of rendered audio, or nil without an output path.
    public let renderFormat: AudioFormat?
    /// How buffers are timed.
    package var pacing: SoftwareAudioPacing { device.pacing }
    /// The output WAV path, if rendering is possible.
    package let outputPath: String?
    /// When false, capture delivers silence and silence is written; pacing continues.
    public var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    private let device: SoftwareAudioDevice
    private let source: SampleSource?
    private let sink = Locked<FileSink?>(nil)

    /// Creates a file device.
    ///
    /// - Parameters:
    ///   - input: The file to capture from, or nil for a render-only device.
    ///   - outputPath: The WAV file to render into, or nil for a capture-only device.
    ///   - renderFormat: The format rendered and written (default 48 kHz mono, 10 ms).
    ///   - endOfInput: Loop the input or continue with silence.
    ///   - requiredCaptureSampleRate: If set, an input at another rate is rejected.
    ///   - pacing: Real time on a clock, or free-running for tests.
    /// - Throws: ``AudioDeviceError/Kind/fileError`` for an unreadable or malformed input,
    ///   ``AudioDeviceError/Kind/unsupportedFormat`` for a rate mismatch or a bad render format.
    public init(
        input: Input?, outputPath: String? = nil, renderFormat: AudioFormat = .voice,
        endOfInput: EndOfInput = .silence, requiredCaptureSampleRate: Int? = nil,
        pacing: SoftwareAudioPacing = .realTime
    ) throws(AudioDeviceError) {
        self.device = SoftwareAudioDevice(label: "voice-file", pacing: pacing)
        self.outputPath = outputPath
        if let input {
            let file: WAVFile
            do {
                file = try Self.load(input)
            } catch {
                throw AudioDeviceError(error)
            }
            if let required = requiredCaptureSampleRate, required != file.sampleRate {
                throw AudioDeviceError(
                    kind: .unsupportedFormat,
                    message: "input is \(file.sampleRate) Hz, \(required) Hz required (no resampling)")
            }
            captureFormat = file.audioFormat()
            source = SampleSource(content: .samples(file.samples, loop: endOfInput == .loop))
        } else {
            captureFormat = nil
            source = nil
        }
        if outputPath != nil {
            guard (1...2).contains(renderFormat.channels), renderFormat.sampleRate > 0, renderFormat.framesPerBuffer > 0 else {
                throw AudioDeviceError(kind: .unsupportedFormat, message: "cannot render \(renderFormat)")
            }
            self.renderFormat = renderFormat
        } else {
            self.renderFormat = nil
        }
    }

    deinit {
        // Finishes the WAV header; the capture side stops with `device`.
        stopRendering()
    }

    /// Starts delivering the input, from its first sample.
    public func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        guard let source, let captureFormat else {
            throw AudioDeviceError(kind: .unsupportedFormat, message: "file device has no input")
        }
        try device.startCapturing(from: source, format: captureFormat, context: context, prepare: source.rewind)
    }

    /// Stops capturing; no capture callback runs after it returns. Idempotent.
    public func stopCapturing() { device.stopCapturing() }

    /// Creates the output WAV and starts pulling render audio into it.
    public func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        guard let outputPath, let renderFormat else {
            throw AudioDeviceError(kind: .unsupportedFormat, message: "file device has no output")
        }
        // The sink slot serializes starts, so a second start cannot truncate the file being written.
        try sink.withLock { slot throws(AudioDeviceError) in
            guard slot == nil else { throw AudioDeviceError(kind: .alreadyStarted, message: "file render already started") }
            let writer = try Self.openWriter(path: outputPath, format: renderFormat)
            let fileSink = FileSink(writer: writer, context: context)
            try device.startRendering(into: fileSink, format: renderFormat, context: context)
            slot = fileSink
        }
    }

    /// Stops rendering and finalizes the WAV header; no render callback runs after it returns. Idempotent.
    public func stopRendering() {
        device.stopRendering()
        sink.withLock { slot in
            slot?.finish()
            slot = nil
        }
    }

    static func openWriter(path: String, format: AudioFormat) throws(AudioDeviceError) -> WAVFileWriter {
        do {
            return try WAVFileWriter(path: path, sampleRate: format.sampleRate, channels: format.channels)
        } catch {
            throw AudioDeviceError(error)
        }
    }

    static func load(_ input: Input) throws(WAVFileError) -> WAVFile {
        switch input {
        case let .wav(path):
            return try WAVFile(contentsOfFile: path)
        case let .raw(path, rate, channels):
            guard channels == 1 || channels == 2 else { throw WAVFileError.unsupportedChannelCount(UInt16(truncatingIfNeeded: channels)) }
            guard rate > 0, rate <= Int(WAVFile.maxSampleRate) else {
                throw WAVFileError.invalidSampleRate(UInt32(truncatingIfNeeded: rate))
            }
            let bytes = try POSIXFile.readAll(path: path)
            guard bytes.count % (2 * channels) == 0 else {
                throw WAVFileError.partialFrame(dataSize: UInt32(truncatingIfNeeded: bytes.count))
            }
            var samples = [Int16]()
            samples.reserveCapacity(bytes.count / 2)
            bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                while let word = try? reader.readUInt16LE() { samples.append(Int16(bitPattern: word)) }
            }
            return WAVFile(sampleRate: rate, channels: channels, samples: samples)
        }
    }

    /// Streams render buffers into the WAV writer. The first write error is reported to the
    /// context as `.failed` and later buffers are dropped, as are buffers after `finish`.
    /// Only the render pump calls `consume`; `finish` runs after the pump stopped (or on the
    /// pump's own thread, when stopped from a callback), hence `@unchecked Sendable`.
    final class FileSink: SoftwareRenderSink, @unchecked Sendable {
        private let writer: WAVFileWriter
        private let context: any AudioDeviceContext
        private var failed = false
        private var finished = false

        init(writer: WAVFileWriter, context: any AudioDeviceContext) {
            self.writer = writer
            self.context = context
        }

        func consume(_ buffer: UnsafeBufferPointer<Int16>) {
            guard !failed, !finished else { return }
            do {
                try writer.append(buffer)
            } catch {
                failed = true
                context.audioDevice(didReport: .failed(AudioDeviceError(error)))
            }
        }

        func finish() {
            guard !finished else { return }
            finished = true
            do {
                try writer.close()
            } catch {
                if !failed { context.audioDevice(didReport: .failed(AudioDeviceError(error))) }
            }
        }
    }
}
