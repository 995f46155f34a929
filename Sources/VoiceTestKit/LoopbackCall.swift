import VoiceEmbedded
import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// Two audio streams talking to each other, each with an in-memory audio device: A plays
/// `signalA` and records what B sends, and the other way round.
///
/// On a threaded engine (the default) the streams run on loopback UDP in real time, and an
/// impairment puts an ``ImpairmentProxy`` between them. On an embedded engine (``virtual(codec:suite:encrypted:signalA:signalB:loop:record:impairmentAToB:impairmentBToA:rtcpInterval:configure:)``)
/// they run on its in-memory network in virtual time, at 10.0.0.1 and 10.0.0.2, the devices
/// paced by the engine's audio clock and the impairment applied by the network: ``advance(by:)``
/// runs the call.
package final class LoopbackCall: Sendable {
    package let a: AudioStream
    package let b: AudioStream
    package let deviceA: BufferAudioDevice
    package let deviceB: BufferAudioDevice
    package let proxy: ImpairmentProxy?
    /// The engine both streams run on.
    package let engine: MediaEngine
    /// The virtual-time driver of the test's waits this call installed.
    private let virtualTimeDriver = Locked<Int?>(nil)

    deinit {
        if let driver = virtualTimeDriver.withLock({ $0 }) { PollingWait.removeDriver(driver) }
    }

    /// A call on a fresh embedded engine and in-memory network, in virtual time.
    package static func virtual(
        codec: MediaCodec = .opus(OpusSettings()), suite: SRTPSuite = .aesCM128HmacSHA1_80, encrypted: Bool = true,
        signalA: [Int16], signalB: [Int16], loop: Bool = false, record: Bool = true,
        impairmentAToB: NetworkImpairment? = nil, impairmentBToA: NetworkImpairment? = nil, rtcpInterval: MediaTime = .seconds(5),
        configure: ((inout AudioStreamConfiguration) -> Void)? = nil
    ) throws -> LoopbackCall {
        let call = try LoopbackCall(
            codec: codec, suite: suite, encrypted: encrypted, signalA: signalA, signalB: signalB, loop: loop, record: record,
            impairmentAToB: impairmentAToB, impairmentBToA: impairmentBToA, engine: .embedded(network: InMemoryMediaNetwork()),
            rtcpInterval: rtcpInterval, configure: configure)
        // The test's waits run the call in virtual time, while it lives.
        let engine = call.engine
        let driver = PollingWait.installDriver { seconds in engine.advance(by: MediaTime(nanoseconds: Int64(seconds * 1_000_000_000))) }
        call.virtualTimeDriver.withLock { $0 = driver }
        return call
    }

    /// Changes the impairment in each direction mid-call (the proxy's, or the in-memory
    /// network's conditions).
    package func impair(aToB: NetworkImpairment, bToA: NetworkImpairment) {
        if let proxy {
            proxy.impair(aToB: aToB, bToA: bToA)
        } else if let network = engine.network {
            network.setConditions(Self.conditions(from: a.localAddress, aToB: aToB, bToA: bToA))
        }
    }

    /// Packets the impairment dropped (the proxy's or the in-memory network's).
    package var droppedPackets: Int {
        if let proxy { return proxy.counts.dropped }
        return engine.network?.counts.dropped ?? 0
    }

    /// Creates both streams (SRTP with fresh keys unless `encrypted` is false) and their devices.
    package init(
        codec: MediaCodec = .opus(OpusSettings()), suite: SRTPSuite = .aesCM128HmacSHA1_80, encrypted: Bool = true,
        signalA: [Int16], signalB: [Int16], loop: Bool = false, record: Bool = true,
        impairmentAToB: NetworkImpairment? = nil, impairmentBToA: NetworkImpairment? = nil,
        engine: MediaEngine = .shared, rtcpInterval: MediaTime = .seconds(5), audioClock: SoftwareAudioClock? = nil,
        configure: ((inout AudioStreamConfiguration) -> Void)? = nil
    ) throws {
        self.engine = engine
        let keyA = SRTPKeyMaterial.random(for: suite)
        let keyB = SRTPKeyMaterial.random(for: suite)
        let network = engine.network
        let localA = try SocketAddress(host: network == nil ? "127.0.0.1" : "10.0.0.1", port: 0)
        let localB = try SocketAddress(host: network == nil ? "127.0.0.1" : "10.0.0.2", port: 0)
        var ca = AudioStreamConfiguration(
            localAddress: localA, codec: codec,
            encryption: encrypted ? .srtp(local: keyA, remote: keyB) : .unencrypted)
        var cb = AudioStreamConfiguration(
            localAddress: localB, codec: codec,
            encryption: encrypted ? .srtp(local: keyB, remote: keyA) : .unencrypted)
        ca.rtcpInterval = rtcpInterval
        cb.rtcpInterval = rtcpInterval
        if network != nil {
            // Virtual time repeats exactly: the random parts of the streams are seeded too.
            (ca.ssrc, ca.initialSequenceNumber, ca.initialTimestamp, ca.rtcpRandomSeed) = (0xA1, 1_000, 160_000, 1)
            (cb.ssrc, cb.initialSequenceNumber, cb.initialTimestamp, cb.rtcpRandomSeed) = (0xB2, 2_000, 320_000, 2)
        }
        configure?(&ca)
        configure?(&cb)
        a = try AudioStream(configuration: ca, engine: engine)
        b = try AudioStream(configuration: cb, engine: engine)
        let capacity = max(signalA.count, signalB.count) + 48_000 * 10
        let pacing = (audioClock ?? engine.audioClock).map { SoftwareAudioPacing.ticked(by: $0) } ?? .realTime
        deviceA = BufferAudioDevice(captureSamples: signalA, loop: loop, recordingCapacity: capacity, recording: record, pacing: pacing)
        deviceB = BufferAudioDevice(captureSamples: signalB, loop: loop, recordingCapacity: capacity, recording: record, pacing: pacing)
        if let network {
            proxy = nil
            if impairmentAToB != nil || impairmentBToA != nil {
                network.setConditions(Self.conditions(from: a.localAddress, aToB: impairmentAToB ?? .none, bToA: impairmentBToA ?? .none))
            }
        } else if impairmentAToB != nil || impairmentBToA != nil {
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

    /// The in-memory network's conditions for the two directions (told apart by A's host).
    private static func conditions(from hostA: SocketAddress, aToB: NetworkImpairment, bToA: NetworkImpairment) -> InMemoryMediaNetwork.Conditions {
        let models = Locked((aToB: ImpairmentModel(aToB), bToA: ImpairmentModel(bToA)))
        return { source, _, sentAt in
            models.withLock { m in
                let due = source.host == hostA.host ? m.aToB.deliveryTime(forPacketAt: sentAt) : m.bToA.deliveryTime(forPacketAt: sentAt)
                return due.map { $0 - sentAt }
            }
        }
    }

    /// Embedded engines: runs the call for `duration` of virtual time.
    package func advance(by duration: MediaTime) {
        engine.advance(by: duration)
    }

    /// Stops both streams and the proxy.
    package func stop() {
        a.stop()
        b.stop()
        proxy?.stop()
    }
}
