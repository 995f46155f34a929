import VoiceSIP
import VoiceSupport

/// Two sessions in a confirmed call, made once, that the transfer harness hands hostile REFER
/// and NOTIFY requests to.
enum FuzzTransfer {
    /// A deterministic generator for the sessions' identifiers.
    private struct Counter: RandomNumberGenerator {
        var state: UInt64 = 0x5EED
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return state ^ (state >> 29)
        }
    }

    private static func configuration(_ user: String, _ host: String, port: UInt16) -> SIPInviteSession.Configuration {
        SIPInviteSession.Configuration(
            localIdentity: SIPNameAddress(uri: SIPURI(user: user, host: host)), contact: SIPURI(user: user, host: host, port: 5060),
            via: SIPVia(transport: "UDP", host: host, port: 5060), capabilities: SDPLocalCapabilities(address: host, port: port),
            cnonce: { "fuzz" })
    }

    /// Alice (caller) and Bob (callee), confirmed.
    private static let call: (alice: SIPInviteSession, bob: SIPInviteSession)? = {
        var rng = Counter()
        var alice = SIPInviteSession(
            outgoingTo: SIPNameAddress(uri: SIPURI(user: "bob", host: "192.0.2.20")), requestURI: SIPURI(user: "bob", host: "192.0.2.20"),
            extraHeaders: [], configuration: configuration("alice", "192.0.2.10", port: 4000), using: &rng)
        guard case .sendRequest(let invite)? = alice.start(now: .zero).first else { return nil }
        var bob = SIPInviteSession(incoming: invite, configuration: configuration("bob", "192.0.2.20", port: 6000), using: &rng)
        guard let ok = bob.accept(now: .zero).lazy.compactMap({ if case .sendResponse(let r) = $0 { r } else { nil } }).first,
            case .sendACK(let ack)? = alice.receiveResponse(ok, now: .zero).first
        else { return nil }
        _ = bob.receiveRequest(ack, now: .zero)
        return (alice, bob)
    }()

    /// Bob gets a REFER with `headers`; accepted, he reports 200. Alice, who sent a REFER, gets a
    /// NOTIFY carrying `notifyBody`. Every request gets one final answer or is put to the app.
    static func refer(headers: SIPHeaders, notifyBody: [UInt8]) {
        guard var (alice, bob) = call, var toBob = alice.currentDialog, var toAlice = bob.currentDialog else { return }
        var fields: [(String, String)] = []
        for field in headers { fields.append((field.name, field.value)) }
        let refer = toBob.makeRequest(method: .refer, via: SIPVia(transport: "UDP", host: "192.0.2.10", branch: "z9hG4bKfuzz1"), headers: fields)
        let answered = bob.receiveRequest(refer, now: .zero)
        let responses = answered.filter { if case .sendResponse = $0 { true } else { false } }.count
        let asked = answered.contains { if case .event(.referReceived) = $0 { true } else { false } }
        precondition(responses + (asked ? 1 : 0) == 1, "a REFER is answered or put to the app, once")
        if asked {
            _ = bob.answerRefer(accept: true, now: .zero)
            _ = bob.notifyRefer(statusCode: 200, now: .zero)
        }
        guard let sent = try? alice.sendRefer(to: SIPURI(user: "carol", host: "192.0.2.30"), now: .zero),
            case .sendRequest(let ours)? = sent.first, let sequence = try? ours.headers.cseq().sequence
        else { return }
        let notify = toAlice.makeRequest(
            method: .notify, via: SIPVia(transport: "UDP", host: "192.0.2.20", branch: "z9hG4bKfuzz2"),
            headers: [("Event", "refer;id=\(sequence)")], body: notifyBody, contentType: "message/sipfrag")
        let heard = alice.receiveRequest(notify, now: .zero)
        precondition(heard.filter { if case .sendResponse = $0 { true } else { false } }.count == 1, "a NOTIFY gets one answer")
    }
}
