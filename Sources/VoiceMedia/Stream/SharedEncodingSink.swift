import VoiceRTP

/// A stream's capture side as a conference bridge sees it when it encodes its shared mix once
/// for many listeners: it reads the stream's encoding, and hands the stream a frame encoded
/// with it instead of the samples. Both calls never wait, and are made on the bridge's thread.
package protocol SharedEncodingSink: AnyObject, Sendable {
    /// The stream's encoding (nil: nothing published yet) and its version, if the version is
    /// not `version`; nil when unchanged, or being published right now (ask again later).
    func sharedEncoding(ifNewerThan version: Int) -> (key: SharedEncodingKey?, version: Int)?
    /// Queues a frame encoded with the stream's encoding, `samples` 48 kHz samples long with
    /// peak sample `peak` and RFC 6464 level `level`, after the samples delivered so far. False
    /// when it cannot be queued: deliver the samples instead.
    func deliverEncodedFrame(_ payload: UnsafeRawBufferPointer, samples: Int, peak: Int, level: UInt8) -> Bool
}

extension SharedEncodingKey {
    /// An encoder producing what a stream with this encoding sends for the same samples.
    package func makeEncoder() throws(MediaCodecError) -> any MediaEncoder {
        let encoder = try codec.makeEncoder(ptime: ptime)
        if case .opus(let settings) = codec {
            if fec != settings.fec { encoder.setFEC(fec) }
            if lossHint != settings.packetLossPercent { encoder.setPacketLossPercent(lossHint) }
            if bitrate != settings.bitrate { encoder.setBitrate(bitrate) }
        }
        return encoder
    }
}

/// A device made for one call, such as a conference room's port to a participant: a call uses
/// it directly instead of through the process-wide hub that shares a device among calls (and
/// runs voice processing on it), so what the call captures and plays is exactly what the
/// device delivers and takes, encoded frames included (``SharedEncodingSink``).
package protocol DedicatedAudioDevice: AudioDevice {
    /// Which received frames the device needs decoded. The stream still takes every packet
    /// through SRTP and its jitter buffer (so loss, lateness and concealment are counted) and
    /// plays silence for a frame it does not decode. A load generator's legs decode none; a
    /// conference port not those announced below the mixer's silence level.
    var receivedAudioDecoding: ReceivedAudioDecoding { get }
}

extension DedicatedAudioDevice {
    package var receivedAudioDecoding: ReceivedAudioDecoding { .always }
}
