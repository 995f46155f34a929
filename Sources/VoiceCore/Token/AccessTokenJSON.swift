/// The JSON shapes of a JWT's header and payload, decoded with `JSONDecoder`.
enum AccessTokenJSON {
    struct Header: Decodable {
        var alg: String?
        var typ: String?
        var cty: String?
    }

    struct Payload: Decodable {
        var iss: String?
        var sub: String?
        var exp: Double?
        var nbf: Double?
        var iat: Double?
        var jti: String?
        var grants: Grants?
    }

    struct Grants: Decodable {
        var identity: String?
        var voice: Voice?
    }

    struct Voice: Decodable {
        struct Incoming: Decodable { var allow: Bool? }
        struct Outgoing: Decodable {
            var application_sid: String?
            var params: [String: String]?
        }
        var incoming: Incoming?
        var outgoing: Outgoing?
        var push_credential_sid: String?
    }
}
