import CLibSRTP
import VoiceSupport

/// Why an SRTP/SRTCP operation failed: a libsrtp `srtp_err_status_t` code, or one of the
/// session's own checks (``bufferTooSmall``, ``unsupportedSuite``, ``packetTooShort``).
///
/// Values compare by code. The set of libsrtp codes may grow with the library, so this is a
/// struct with `static let` values rather than a closed enum.
package struct SRTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The libsrtp status code (1...27), or a value of 1000 and above for checks made here.
    package let code: Int32

    @usableFromInline init(code: Int32) { self.code = code }

    /// Wraps a libsrtp status other than `srtp_err_status_ok`; callers normally go through ``check(_:)``.
    @usableFromInline init(status: srtp_err_status_t) { self.code = Int32(bitPattern: status.rawValue) }

    /// Throws the typed error for any libsrtp status other than `srtp_err_status_ok`.
    /// The one place C return codes become ``SRTPError`` values.
    @inlinable static func check(_ status: srtp_err_status_t) throws(SRTPError) {
        if status != srtp_err_status_ok { throw SRTPError(status: status) }
    }

    /// Unspecified failure (`srtp_err_status_fail`).
    package static let fail = SRTPError(code: 1)
    /// An unsupported or invalid parameter (`srtp_err_status_bad_param`).
    package static let badParam = SRTPError(code: 2)
    /// Memory allocation failed (`srtp_err_status_alloc_fail`).
    package static let allocFail = SRTPError(code: 3)
    /// Deallocation failed (`srtp_err_status_dealloc_fail`).
    package static let deallocFail = SRTPError(code: 4)
    /// Initialization failed (`srtp_err_status_init_fail`).
    package static let initFail = SRTPError(code: 5)
    /// The cipher cannot process that much data (`srtp_err_status_terminus`).
    package static let terminus = SRTPError(code: 6)
    /// The authentication tag did not verify (`srtp_err_status_auth_fail`).
    package static let authFail = SRTPError(code: 7)
    /// The cipher failed (`srtp_err_status_cipher_fail`).
    package static let cipherFail = SRTPError(code: 8)
    /// The packet index was already seen (`srtp_err_status_replay_fail`).
    package static let replayFail = SRTPError(code: 9)
    /// The packet index is older than the replay window (`srtp_err_status_replay_old`).
    package static let replayOld = SRTPError(code: 10)
    /// An algorithm failed its self-test (`srtp_err_status_algo_fail`).
    package static let algoFail = SRTPError(code: 11)
    /// Unsupported operation (`srtp_err_status_no_such_op`).
    package static let noSuchOp = SRTPError(code: 12)
    /// No stream matches the packet's SSRC (`srtp_err_status_no_ctx`).
    package static let noContext = SRTPError(code: 13)
    /// The check could not be performed (`srtp_err_status_cant_check`).
    package static let cantCheck = SRTPError(code: 14)
    /// The master key reached the end of its lifetime (`srtp_err_status_key_expired`).
    package static let keyExpired = SRTPError(code: 15)
    /// Parsing failed (`srtp_err_status_parse_err`).
    package static let parseError = SRTPError(code: 21)
    /// The packet's MKI does not name a known master key (`srtp_err_status_bad_mki`).
    package static let badMKI = SRTPError(code: 25)
    /// The packet index is too old to consider (`srtp_err_status_pkt_idx_old`).
    package static let packetIndexOld = SRTPError(code: 26)
    /// The packet index advanced past what the key allows; rekey (`srtp_err_status_pkt_idx_adv`).
    package static let packetIndexAdvanced = SRTPError(code: 27)

    /// The caller's buffer cannot hold the packet plus its SRTP trailer (or is shorter than the
    /// stated length). Checked here, before libsrtp touches memory.
    package static let bufferTooSmall = SRTPError(code: 1000)
    /// The crypto suite is not available in the linked libsrtp build.
    package static let unsupportedSuite = SRTPError(code: 1001)
    /// The packet is shorter than its fixed header (plus, inbound, the tag and any MKI).
    package static let packetTooShort = SRTPError(code: 1002)

    /// True for the two replay-protection rejections (``replayFail``, ``replayOld``).
    package var isReplay: Bool { self == .replayFail || self == .replayOld }

    /// A human-readable explanation naming the libsrtp status or local check.
    package var description: String {
        switch code {
        case 1: "SRTP: unspecified failure"
        case 2: "SRTP: bad parameter"
        case 3: "SRTP: allocation failed"
        case 4: "SRTP: deallocation failed"
        case 5: "SRTP: initialization failed"
        case 6: "SRTP: cipher cannot process this much data"
        case 7: "SRTP: authentication failed"
        case 8: "SRTP: cipher failure"
        case 9: "SRTP: replayed packet"
        case 10: "SRTP: packet older than the replay window"
        case 11: "SRTP: algorithm failed its self-test"
        case 12: "SRTP: unsupported operation"
        case 13: "SRTP: no context for this SSRC"
        case 14: "SRTP: cannot perform check"
        case 15: "SRTP: master key expired"
        case 21: "SRTP: parse error"
        case 25: "SRTP: unknown MKI"
        case 26: "SRTP: packet index too old"
        case 27: "SRTP: packet index advanced, rekey needed"
        case 1000: "SRTP: buffer too small for packet and trailer"
        case 1001: "SRTP: crypto suite not available in this libsrtp build"
        case 1002: "SRTP: packet too short"
        default: "SRTP: libsrtp error \(code)"
        }
    }
}
