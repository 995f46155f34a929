import COpusEnc
import VoiceSupport

/// The file a recording writes: WAV (16-bit PCM) or Ogg Opus (libopusenc), 48 kHz, one or two
/// channels. Used by the recording's writer thread only.
final class AudioRecordingFile {
    private enum Backend {
        case wav(WAVFileWriter)
        case ogg(OpaquePointer)
    }
    private var backend: Backend?
    let path: String
    let channels: Int

    /// Creates `path` (replacing a file there).
    /// - Throws: ``AudioRecordingError`` when it cannot be created.
    init(path: String, format: AudioRecordingOptions.Format, channels: Int) throws(AudioRecordingError) {
        self.path = path
        self.channels = channels
        switch format {
        case .wav:
            do throws(WAVFileError) {
                backend = .wav(try WAVFileWriter(path: path, sampleRate: 48_000, channels: channels))
            } catch {
                throw AudioRecordingError(.cannotCreateFile, path: path, reason: "\(error)")
            }
        case .oggOpus:
            guard let comments = ope_comments_create() else { throw AudioRecordingError(.cannotCreateFile, path: path, reason: "out of memory") }
            defer { ope_comments_destroy(comments) }
            var error: Int32 = 0
            guard let encoder = ope_encoder_create_file(path, comments, 48_000, Int32(channels), 0, &error), error == OPE_OK else {
                throw AudioRecordingError(.cannotCreateFile, path: path, reason: String(cString: ope_strerror(error)))
            }
            backend = .ogg(encoder)
        }
    }

    deinit { try? close() }

    /// Appends interleaved frames.
    func append(_ samples: UnsafeBufferPointer<Int16>) throws(AudioRecordingError) {
        switch backend {
        case .wav(let writer):
            do throws(WAVFileError) {
                try writer.append(samples)
            } catch {
                throw AudioRecordingError(.writeFailed, path: path, reason: "\(error)")
            }
        case .ogg(let encoder):
            guard let base = samples.baseAddress else { return }
            let rc = ope_encoder_write(encoder, base, Int32(samples.count / channels))
            guard rc == OPE_OK else { throw AudioRecordingError(.writeFailed, path: path, reason: String(cString: ope_strerror(rc))) }
        case nil:
            throw AudioRecordingError(.writeFailed, path: path, reason: "closed")
        }
    }

    /// Finishes the file (the WAV header's sizes, the last Ogg pages). Idempotent.
    func close() throws(AudioRecordingError) {
        guard let backend else { return }
        self.backend = nil
        switch backend {
        case .wav(let writer):
            do throws(WAVFileError) {
                try writer.close()
            } catch {
                throw AudioRecordingError(.writeFailed, path: path, reason: "\(error)")
            }
        case .ogg(let encoder):
            let rc = ope_encoder_drain(encoder)
            ope_encoder_destroy(encoder)
            guard rc == OPE_OK else { throw AudioRecordingError(.writeFailed, path: path, reason: String(cString: ope_strerror(rc))) }
        }
    }
}
