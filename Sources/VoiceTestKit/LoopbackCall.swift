import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

/// Two audio streams on loopback talking to each other, each with an in-memory audio device:
/// A plays `signalA` and records what B sends, and the other way round. With an impairment,
/// traffic goes through an ``ImpairmentProxy``.
package final class LoopbackCall: Sendable {
    package let a: AudioStream
    package let b: AudioStream
    package let deviceA: BufferAudioDevice
    package let deviceB: BufferAudioDevice
    package let proxy: ImpairmentProxy?

    /// Creates both streams (SRTP with fresh keys unless `encrypted` is false) and their devices.
    package init(
        codec: MediaCodec = .opus(OpusSettings()), suite: SRTPSuite = .aesCM128HmacSHA1_80, encrypted: Bool = true,
        signalA: [Int16], signalB: [Int16], loop: Bool = false, record: Bool = true,
        impairmentAToB: NetworkImpairment? = nil, impairmentBToA: NetworkImpairment? = nil,
        engine: MediaEngine = .shared, rtcpInterval: MediaTime = .seconds(5),
        configure: ((inout AudioStreamConfiguration) -> Void)? = nil
    ) throws {
        let keyA = SRTPKeyMaterial.random(for: suite)
        let keyB = SRTPKeyMaterial.random(for: suite)
        let local = try SocketAddress(host: "127.0.0.1", port: 0)
        var ca = AudioStreamConfiguration(
            localAddress: local, codec: codec,
            encryption: encrypted ? .srtp(local: keyA, remote: keyB) : .unencrypted)
        var cb = AudioStreamConfiguration(
            localAddress: local, codec: codec,
            encryption: encrypted ? .srtp(local: keyB, remote: keyA) : .unencrypted)
        ca.rtcpInterval = rtcpInterval
        cb.rtcpInterval = rtcpInterval
        configure?(&ca)
        configure?(&cb)
        a = try AudioStream(configuration: ca, engine: engine)
        b = try AudioStream(configuration: cb, engine: engine)
        let capacity = max(signalA.count, signalB.count) + 48_000 * 10
        deviceA = BufferAudioDevice(captureSamples: signalA, loop: loop, recordingCapacity: capacity, recording: record)
        deviceB = BufferAudioDevice(captureSamples: signalB, loop: loop, recordingCapacity: capacity, recording: record)
        if impairmentAToB != nil || impairmentBToA != nil {
            proxy = try ImpairmentProxy(
                endpointA: a.localAddress, endpointB: b.localAddress,
                aToB: impairmentAToB ?? .none, bToA: impairmentBToA ?? .none)
        } else {
            proxy = nil
        }
    }

    /// Starts both streams and their devices.
    package func start() throws {
        try a.start(remote: proxy?.addressForA ?? b.localAddress, audioDevice: deviceA)
        try b.start(remote: proxy?.addressForB ?? a.localAddress, audioDevice: deviceB)
    }

    /// Stops both streams and the proxy.
    package func stop() {
        a.stop()
        b.stop()
        proxy?.stop()
    }
}
