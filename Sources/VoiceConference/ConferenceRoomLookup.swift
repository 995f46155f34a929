import Foundation
import VoiceCore
import VoiceSIP

/// The room an INVITE asks for, read from its Request-URI or a header in one of the
/// ``ConferenceAddressing`` forms, and the SIP answer for one that cannot be joined.
enum ConferenceRoomLookup: Equatable {
    case room(String)
    /// A refusal: the SIP status and reason phrase to reject with.
    case refused(statusCode: Int, reason: String)

    /// Reads the room from `uri` and `headers`, trying `forms` in order.
    init(requestURI uri: SIPURI, headers: SIPHeaders, forms: [ConferenceAddressing]) {
        for form in forms {
            guard let (text, inHeader) = Self.candidate(uri: uri, headers: headers, form: form) else { continue }
            self = Self.checked(text, inHeader: inHeader)
            return
        }
        self = .refused(statusCode: 404, reason: "Not A Conference")
    }

    /// The room's text in `form`, if the request uses that form; whether it came from a header.
    private static func candidate(uri: SIPURI, headers: SIPHeaders, form: ConferenceAddressing) -> (String, Bool)? {
        let user = uri.user ?? ""
        switch form {
        case .uriParameter:
            return uri.parameters.contains(CallDestination.conferenceParameter) ? (user, false) : nil
        case .userPrefix(let prefix):
            guard !prefix.isEmpty, user.count > prefix.count, user.lowercased().hasPrefix(prefix.lowercased()) else { return nil }
            return (String(user.dropFirst(prefix.count)), false)
        case .host(let host):
            return uri.host.lowercased() == host.lowercased() ? (user, false) : nil
        case .focus(let focus, let header):
            guard user == focus, let value = headers[header].first else { return nil }
            return (value.trimmingCharacters(in: .whitespaces), true)
        }
    }

    /// A room id is 1–64 characters (Sinch's limit) of ALPHA, DIGIT and `-_.~`.
    private static func checked(_ text: String, inHeader: Bool) -> ConferenceRoomLookup {
        if text.count > CallDestination.maximumConferenceIDLength {
            // RFC 3261 §21.4.12: longer than the server is willing to interpret; in a header, a bad request.
            return .refused(statusCode: inHeader ? 400 : 414, reason: "Conference Id Longer Than \(CallDestination.maximumConferenceIDLength) Characters")
        }
        guard let id = try? CallDestination.checkedConferenceID(text[...]) else {
            return .refused(statusCode: inHeader ? 400 : 404, reason: "Invalid Conference Id")
        }
        return .room(id)
    }
}
