import VoiceAddress
import XCTest

@testable import VoiceICE

/// What media each selected pair carried: counted against the pair selected at the time.
final class ICEPairTrafficTests: XCTestCase {
    private func pair(_ local: String, _ remote: String) -> ICEPairAddresses {
        ICEPairAddresses(local: TransportAddress(ip: IPAddress(local)!, port: 5000), remote: TransportAddress(ip: IPAddress(remote)!, port: 6000))
    }

    func testEachPairKeepsWhatItCarriedAcrossSwitches() {
        var ledger = ICETrafficLedger()
        ledger.sent(100)  // a handshake the peer started before any pair was selected
        let first = pair("10.0.0.1", "10.0.0.2")
        let second = pair("10.0.9.1", "10.0.0.2")
        ledger.select(first)
        ledger.sent(200)
        ledger.received(50)
        ledger.select(first)  // the same pair again changes nothing
        ledger.sent(1)
        XCTAssertEqual(ledger.traffic(of: first).packetsSent, 3)
        XCTAssertEqual(ledger.traffic(of: first).bytesSent, 301, "what went before the first selection counts toward it")
        ledger.select(second)
        ledger.sent(70)
        ledger.received(30)
        ledger.received(30)
        XCTAssertEqual(ledger.traffic(of: second).bytesSent, 70)
        XCTAssertEqual(ledger.traffic(of: second).packetsReceived, 2)
        XCTAssertEqual(ledger.traffic(of: first).bytesSent, 301, "kept while another pair carries media")
        XCTAssertEqual(ledger.traffic(of: first).bytesReceived, 50)
        ledger.select(first)  // back (a renomination): its count goes on
        ledger.received(5)
        XCTAssertEqual(ledger.traffic(of: first).bytesReceived, 55)
        XCTAssertEqual(ledger.traffic(of: first).packetsReceived, 2)
        XCTAssertEqual(ledger.traffic(of: second).bytesReceived, 60)
        XCTAssertEqual(ledger.traffic(of: pair("10.0.0.1", "10.0.0.3")), ICEPairTraffic(), "a pair never selected carried nothing")
    }
}
