import Crypto
import VoiceSIP

/// A call's server-style identifier: `CA` followed by 32 lowercase hex digits.
///
/// Both ends must agree on it without a server in the middle, so a received INVITE's SID is
/// taken from the `X-Twilio-CallSid` header when a server supplied one, and otherwise derived from
/// the Call-ID (`CA` + the first 16 bytes of SHA-256(Call-ID) in hex), which the caller can
/// compute the same way from the INVITE it sent.
package struct CallSid: Hashable, Sendable, CustomStringConvertible {
    /// The header a server (or the calling SDK) may put the SID in.
    package static let headerName = "X-Twilio-CallSid"
    /// The SID's prefix.
    package static let prefix = "CA"

    /// The SID text, e.g. "CA0123456789abcdef0123456789abcdef".
    package let rawValue: String

    /// Checks `text`: `CA` + 32 hex digits (upper-case hex is accepted and lowered); nil otherwise.
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 34, bytes[0] == UInt8(ascii: "C"), bytes[1] == UInt8(ascii: "A") else { return nil }
        var hex = ""
        for byte in bytes[2...] {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                hex.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                hex.unicodeScalars.append(Unicode.Scalar(byte + 32))
            default:
                return nil
            }
        }
        rawValue = Self.prefix + hex
    }

    /// The SID derived from a Call-ID: `CA` + hex of the first 16 bytes of its SHA-256.
    package init(callID: String) {
        let digest = SHA256.hash(data: Array(callID.utf8))
        let digits = Array("0123456789abcdef".unicodeScalars)
        var text = Self.prefix
        for byte in digest.prefix(16) {
            text.unicodeScalars.append(digits[Int(byte >> 4)])
            text.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        rawValue = text
    }

    /// The SID of a received INVITE: a valid ``headerName`` value if present, else derived
    /// from the Call-ID. Throws 31100 ``VoiceError/Code/malformedRequest`` when neither is
    /// usable (no valid header and no Call-ID).
    package init(headers: SIPHeaders) throws(VoiceError) {
        if let supplied = headers.first(Self.headerName), let sid = CallSid(supplied) {
            self = sid
            return
        }
        guard let callID = try? headers.callID(), !callID.isEmpty else {
            throw VoiceError(.malformedRequest, failureReason: "The INVITE has no Call-ID to derive a call SID from")
        }
        self.init(callID: callID)
    }

    package var description: String { rawValue }
}
