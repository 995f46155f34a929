// The README's third example, as it is printed there (DocumentationExamplesTests).
import Logging
import VoiceConference
import VoiceCore

func hostRooms(configuration: VoiceClientConfiguration, logger: Logger) async throws {
    let client = try VoiceClient(configuration: configuration)
    let rooms = ConferenceServer(client: client, options: ConferenceServerOptions(maximumParticipants: 10))
    defer {
        rooms.stop()
        client.shutdown()
    }
    rooms.start { error in
        if let error { logger.error("registration failed: \(error)") }
    }
    for await event in rooms.events {
        switch event {
        case .participantJoined(let participant): logger.info("\(participant) joined")
        case .talking(let participant, true): logger.info("\(participant) talks")
        default: break
        }
    }
}
