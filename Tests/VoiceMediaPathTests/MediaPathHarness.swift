import VoiceAddress
import VoiceDTLS
import VoiceICE
import VoiceMediaPath
import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import XCTest

/// Two media paths wired back to back with no socket: what one sends to the other's address
/// arrives there on the next step of a virtual clock, classified as the driver would (RFC 7983).
/// Each side has a real DTLS association (OpenSSL, in memory) that the harness drives as the
/// stream's driver does: the path's commands go to it, what it says goes back to the path.
final class MediaPathHarness {
    final class Side {
        var path: MediaPath
        let dtls: DTLSAssociation
        let address: TransportAddress
        var events: [MediaPathEvent] = []
        var routes: [MediaRoute] = []
        var keys: DTLSSRTPKeys?
        var inbox: [(bytes: [UInt8], from: TransportAddress, to: TransportAddress)] = []
        /// What the SRTP library says to the keys: nil takes them.
        var refuseKeys: String?
        /// Whether what this side sends reaches the other (false: the link is cut one way).
        var delivers = true
        /// The host's addresses on the path's port beside `address` (a wildcard-bound socket
        /// receives on each; a datagram names its source when the path gives one).
        var otherAddresses: [TransportAddress] = []
        /// Addresses the host no longer has: nothing leaves from them or arrives at them.
        var goneAddresses: Set<TransportAddress> = []

        init(path: MediaPath, dtls: DTLSAssociation, address: TransportAddress) {
            self.path = path
            self.dtls = dtls
            self.address = address
        }
    }

    static let certificateA = try! DTLSCertificate.generate(commonName: "a")
    static let certificateB = try! DTLSCertificate.generate(commonName: "b")

    let a: Side
    let b: Side
    private(set) var now = MediaTime.zero
    /// Datagrams sent to an address that is neither side's (nil: to a TURN server).
    private(set) var strays: [(bytes: [UInt8], to: TransportAddress?)] = []

    /// A (controlling, DTLS server) at 10.0.0.1:4000 and B (controlled, DTLS client) at
    /// 10.0.0.2:5000, each with one host candidate; `bCandidates` replaces what B offers.
    /// With `aBoundToWildcard`, A's socket is bound to 0.0.0.0:4000 (its candidate stays
    /// 10.0.0.1:4000), as a call's media socket is.
    init(
        bCandidates: [ICECandidate]? = nil, configuration: ICEAgentConfiguration = ICEAgentConfiguration(), aBoundToWildcard: Bool = false
    ) throws {
        let addressA = try Self.address("10.0.0.1", 4_000)
        let addressB = try Self.address("10.0.0.2", 5_000)
        var random = SplitMix64(seed: 11)
        let credentialsA = ICECredentials.random(using: &random)
        let credentialsB = ICECredentials.random(using: &random)
        let candidateA = Self.host(addressA)
        let candidatesB = bCandidates ?? [Self.host(addressB)]
        let pathA = MediaPath(
            localCredentials: credentialsA, localCandidates: [candidateA], isControlling: true,
            remoteICE: .init(credentials: credentialsB, candidates: candidatesB, isLite: false),
            configuration: configuration, relay: nil, localAddress: aBoundToWildcard ? try Self.address("0.0.0.0", 4_000) : addressA,
            signaledRemote: addressB)
        let pathB = MediaPath(
            localCredentials: credentialsB, localCandidates: candidatesB, isControlling: false,
            remoteICE: .init(credentials: credentialsA, candidates: [candidateA], isLite: false),
            configuration: configuration, relay: nil, localAddress: addressB, signaledRemote: addressA)
        a = Side(
            path: pathA,
            dtls: try DTLSAssociation(certificate: Self.certificateA, role: .server, remoteFingerprints: [Self.certificateB.fingerprint]),
            address: addressA)
        b = Side(
            path: pathB,
            dtls: try DTLSAssociation(certificate: Self.certificateB, role: .client, remoteFingerprints: [Self.certificateA.fingerprint]),
            address: addressB)
    }

    static func address(_ ip: String, _ port: UInt16) throws -> TransportAddress {
        TransportAddress(ip: try XCTUnwrap(IPAddress(ip)), port: port)
    }

    static func host(_ address: TransportAddress) -> ICECandidate {
        .local(.host, address: address, base: address)
    }

    func other(_ side: Side) -> Side { side === a ? b : a }

    /// Starts both paths.
    func start() {
        for side in [a, b] { drive(side) { $0.start(now: self.now) } }
    }

    /// Runs `body` on `side`'s path and carries out what it returns, as the stream's driver does.
    func drive(_ side: Side, _ body: (inout MediaPath) -> [MediaPath.Effect]) {
        let effects = body(&side.path)
        for effect in effects {
            switch effect {
            case .send(let bytes, let to, let source):
                let peer = other(side)
                let from = source ?? side.address
                if to == peer.address || peer.otherAddresses.contains(to) {
                    if side.delivers, !side.goneAddresses.contains(from), !peer.goneAddresses.contains(to) { peer.inbox.append((bytes, from, to)) }
                } else {
                    strays.append((bytes, to))
                }
            case .sendToRelay(let bytes):
                strays.append((bytes, nil))
            case .route(let route):
                side.routes.append(route)
            case .dtls(.start):
                let said = side.dtls.start(now: now)
                drive(side) { $0.dtlsSaid(said, now: self.now) }
            case .dtls(.receive(let bytes)):
                let said = side.dtls.receive(bytes, now: now)
                drive(side) { $0.dtlsSaid(said, now: self.now) }
            case .protect(let keys):
                if let reason = side.refuseKeys {
                    drive(side) { $0.keysRefused(reason) }
                } else {
                    side.keys = keys
                    drive(side) { $0.keysInstalled(now: self.now) }
                }
            case .channelBound, .channelsCleared:
                break
            case .event(let event):
                side.events.append(event)
            }
        }
    }

    /// One step of `step` on the virtual clock: each side handles what reached it, then ticks.
    func step(_ step: MediaTime = .milliseconds(5)) {
        now = now + step
        for side in [a, b] {
            let arrived = side.inbox
            side.inbox = []
            for (bytes, source, destination) in arrived {
                switch bytes.withUnsafeBytes({ MediaDatagramKind($0) }) {
                case .stun: drive(side) { $0.receiveSTUN(bytes, from: source, to: destination, now: self.now) }
                case .dtls: drive(side) { $0.receiveDTLS(bytes, from: source, now: self.now) }
                default: XCTFail("unexpected datagram from \(source)")
                }
            }
            drive(side) { $0.tick(now: self.now) }
            if side.path.runsDTLS, let due = side.dtls.nextDeadline, now >= due {
                let said = side.dtls.tick(now: now)
                drive(side) { $0.dtlsSaid(said, now: self.now) }
            }
        }
    }

    /// Steps until `done` holds or `limit` passes on the virtual clock; false if it never held.
    @discardableResult
    func run(until done: () -> Bool, limit: MediaTime = .seconds(5)) -> Bool {
        let end = now + limit
        while now < end {
            if done() { return true }
            step()
        }
        return done()
    }

    /// Both sides keyed.
    var bothKeyed: Bool { a.path.gate == .open && b.path.gate == .open }
}
