import Glibc
import VoiceMedia

/// The WAV files baresip reads (`aufile` source) and writes (`sndfile` recordings), through
/// VoiceMedia's ``WAVFile``.
package enum BaresipWAVFile {
    /// Writes mono 48 kHz `samples` as the 48 kHz file `aufile` needs for an Opus call: stereo
    /// (each sample on both channels) by default; mono for a peer configured with
    /// ``BaresipConfiguration/opusStereo`` false, whose Opus codec is then one-channel. baresip
    /// 1.0.0 sends nothing from a file whose format differs from its codec's.
    package static func write(_ samples: [Int16], to path: String, channels: Int = 2) throws(SIPPeerError) {
        var interleaved: [Int16] = []
        interleaved.reserveCapacity(samples.count * channels)
        for sample in samples {
            for _ in 0..<channels { interleaved.append(sample) }
        }
        do {
            try WAVFile(sampleRate: 48_000, channels: channels, samples: interleaved).write(toFile: path)
        } catch {
            throw SIPPeerError(.fileSystem, "cannot write \(path): \(error)")
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
