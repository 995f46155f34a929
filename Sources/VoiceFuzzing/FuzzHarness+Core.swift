import Foundation
import VoiceCore

extension FuzzHarness {
    static let core: [FuzzHarness] = [
        FuzzHarness(name: "access-token", summary: "an access token (JWT) as given to connect/register") { bytes in
            _ = try? AccessToken(parsing: String(decoding: bytes, as: UTF8.self), now: Date(timeIntervalSince1970: 1_800_000_000))
        },
        FuzzHarness(name: "destination", summary: "a To parameter and custom parameters") { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if let destination = try? CallDestination(parsing: text) {
                _ = destination.requestURI(domain: "example.com")
            }
            _ = try? CallInviteCustomParameters.parse(text)
        },
    ]
}
