import Glibc
import VoiceMedia

/// The WAV files baresip reads (`aufile` source) and writes (`sndfile` recordings), through
/// VoiceMedia's ``WAVFile``.
package enum BaresipWAVFile {
    /// Writes mono 48 kHz `samples` as the 48 kHz file `aufile` needs for an Opus call: stereo
    /// (each sample on both channels) by default; mono for a peer configured with
    /// ``BaresipConfiguration/opusStereo`` false, whose Opus codec is then one-channel. baresip
    /// 1.0.0 sends nothing from a file whose format differs from its codec's: a G.722 call
    /// needs `sampleRate` 16 000 and one channel (the samples are resampled to it).
    package static func write(_ samples: [Int16], to path: String, channels: Int = 2, sampleRate: Int = 48_000) throws(SIPPeerError) {
        let source = try resample(samples, from: 48_000, to: sampleRate)
        var interleaved: [Int16] = []
        interleaved.reserveCapacity(source.count * channels)
        for sample in source {
            for _ in 0..<channels { interleaved.append(sample) }
        }
        do {
            try WAVFile(sampleRate: sampleRate, channels: channels, samples: interleaved).write(toFile: path)
        } catch {
            throw SIPPeerError(.fileSystem, "cannot write \(path): \(error)")
        }
    }

    /// Mono `samples` at `rate` converted to `target` (band-limited, speexdsp's best quality),
    /// delay-compensated so that sample i of the result is at the time of sample i of the input.
    package static func resample(_ samples: [Int16], from rate: Int, to target: Int) throws(SIPPeerError) -> [Int16] {
        guard rate != target else { return samples }
        do {
            let resampler = try Resampler(inputRate: rate, outputRate: target, quality: 10)
            let delay = resampler.outputLatency
            var output = [Int16](repeating: 0, count: resampler.outputCapacity(forInput: samples.count + delay * rate / target + 1) + 16)
            let padded = samples + [Int16](repeating: 0, count: delay * rate / target + 1)
            let produced = try padded.withUnsafeBufferPointer { input in
                try output.withUnsafeMutableBufferPointer { try resampler.process(input, into: $0).produced }
            }
            let wanted = samples.count * target / rate
            return Array(output[min(delay, produced)..<min(produced, delay + wanted)])
        } catch {
            throw SIPPeerError(.invalidValue, "cannot resample \(rate) → \(target) Hz: \(error)")
        }
    }

    /// Reads a recording; one `sndfile` has not finalised yet (size fields 0) is read to its end.
    /// - Throws: ``SIPPeerError/Kind/fileSystem`` for a missing file, ``SIPPeerError/Kind/invalidValue``
    ///   for anything that is not 16-bit PCM WAV.
    package static func read(_ path: String) throws(SIPPeerError) -> WAVFile {
        guard access(path, R_OK) == 0 else { throw SIPPeerError(.fileSystem, "cannot read \(path)") }
        do {
            return try WAVFile(contentsOfFile: path, unfinished: true)
        } catch {
            throw SIPPeerError(.invalidValue, "\(path): \(error)")
        }
    }
}
