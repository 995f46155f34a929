import Dispatch
import Foundation
import VoiceCore
import VoiceMedia
import VoiceSupport

/// Conference rooms hosted by this process (Sinch's conference call type, pjsip's
/// `pjmedia_conf`): calls to a room join it, and each participant hears everyone else, mixed
/// at 48 kHz, each leg in its own codec and at its own clock.
///
/// ```swift
/// let client = try VoiceClient(configuration: VoiceClientConfiguration(identity: "rooms", domain: "example.com"))
/// let server = ConferenceServer(client: client, options: ConferenceServerOptions(maximumParticipants: 10))
/// server.start { error in … }
/// for await event in server.events { print(event) }   // joined, left, talking…
/// ```
///
/// Callers address a room as ``VoiceClientConfiguration/conferenceAddressing`` does (by default
/// `sip:room@host;conference`, what `connect(to: "conference:room")` sends). The server answers
/// 414 for a room id over 64 characters, 404 for an unknown room when
/// ``ConferenceServerOptions/knownRoomsOnly`` or for a call that names no room, and 486 Busy
/// Here when the room is full.
///
/// The server takes the client's incoming calls: it registers (or only listens) as the
/// client's notification delegate. Threading: thread-safe; events come in order on the
/// delegate's queue and in ``events``.
public final class ConferenceServer: Sendable {
    /// The client whose incoming calls join rooms.
    public let client: VoiceClient
    /// How callers are admitted.
    public let options: ConferenceServerOptions
    /// Every event, from the moment the server is made (buffering the newest 4,096 while nobody reads).
    public let events: AsyncStream<ConferenceEvent>

    let core: ConferenceServerCore

    /// A server for `client`'s incoming calls. Its rooms mix on a real-time thread of their own
    /// (10 ms), or on the client's embedded media engine's clock when it runs in virtual time.
    public init(
        client: VoiceClient, options: ConferenceServerOptions = ConferenceServerOptions(),
        delegate: ConferenceServerDelegate? = nil, delegateQueue: DispatchQueue = .main
    ) {
        self.client = client
        self.options = options
        let (events, continuation) = AsyncStream.makeStream(of: ConferenceEvent.self, bufferingPolicy: .bufferingNewest(4_096))
        self.events = events
        let clock = client.configuration.mediaEngine.audioClock
        core = ConferenceServerCore(
            client: client, options: options,
            clock: clock ?? .shared, measuresLateness: clock == nil,
            continuation: continuation, delegate: delegate.map { WeakConferenceDelegate($0) }, delegateQueue: delegateQueue)
        core.server.withLock { $0 = WeakServer(self) }
        for room in options.knownRooms.sorted() { core.queue.async { self.core.openRoom(room) } }
    }

    /// Starts taking calls: registers the client (or, without REGISTER, listens); `completion`
    /// gets nil or the registration's error, on the delegate's queue.
    public func start(completion: @escaping @Sendable (VoiceError?) -> Void) {
        let queue = core.delegateQueue
        client.register(notificationDelegate: core.invites, delegateQueue: core.queue) { error in queue.async { completion(error) } }
    }

    /// Ends every room (their calls are hung up) and stops taking calls.
    public func stop() {
        client.unregister { _ in }
        core.queue.sync { core.endAll() }
    }

    /// The rooms open now, sorted.
    public var rooms: [String] { core.queue.sync { core.rooms.keys.sorted() } }

    /// The participants of `room` whose calls are connected, in order of joining.
    public func participants(in room: String) -> [ConferenceParticipant] {
        core.queue.sync { core.rooms[room]?.joined ?? [] }
    }

    /// Mutes (true) or unmutes a participant: the others stop or start hearing it; it still hears them.
    public func setMuted(_ muted: Bool, participant: ConferenceParticipant) {
        core.queue.async { self.core.setMuted(muted, participant) }
    }

    /// Whether the server muted `participant`.
    public func isMuted(_ participant: ConferenceParticipant) -> Bool {
        core.queue.sync { core.isMuted(participant) }
    }

    /// Whether `participant` is talking now (from its audio's levels, with hysteresis).
    public func isTalking(_ participant: ConferenceParticipant) -> Bool {
        core.queue.sync { core.isTalking(participant) }
    }

    /// `participant`'s call (its stats, quality warnings…), while it is in the room.
    public func call(of participant: ConferenceParticipant) -> Call? {
        core.queue.sync { core.rooms[participant.room]?.seats[participant.id]?.call }
    }

    /// Hangs up `participant`'s call; it leaves the room.
    public func remove(_ participant: ConferenceParticipant) {
        core.queue.async { self.core.remove(participant) }
    }

    /// Records `room`'s mix (everyone who talks in it, one channel) to `path`, WAV or Ogg Opus
    /// (by default by the name, as a call's recording), until ``stopRecording(room:)`` or the
    /// room's end; `completion` gets the summary then, on the delegate's queue.
    /// - Throws: ``AudioRecordingError``: `.cannotCreateFile`, or `.unavailable` when the room
    ///   is not open or is already being recorded.
    public func startRecording(
        room: String, to path: String, options: AudioRecordingOptions? = nil,
        completion: @escaping @Sendable (AudioRecordingSummary) -> Void = { _ in }
    ) throws(AudioRecordingError) {
        let queue = core.delegateQueue
        let recording = try AudioRecording(path: path, options: options ?? AudioRecordingOptions(path: path), twoDirections: false) { summary in
            queue.async { completion(summary) }
        }
        guard core.queue.sync(execute: { core.startRecording(recording, room: room) }) else {
            recording.cancel(reason: "room \(room) is not open or is already being recorded")
            throw AudioRecordingError(.unavailable, path: path, reason: "room \(room) is not open or is already being recorded")
        }
    }

    /// Ends `room`'s recording: what was taken is written and the file finished.
    public func stopRecording(room: String) {
        core.queue.async { self.core.rooms[room].map { self.core.stopRecording($0) } }
    }

    /// Hangs up every call in `room` and closes it (a known room opens again with its next caller).
    public func endRoom(_ room: String) {
        core.queue.async { self.core.endRoom(room) }
    }

    /// Over the open rooms: frames participants got as their room's shared encode, frames they
    /// got as samples of their own mix, and the encodes the rooms' groups made.
    package var encodingFigures: (shared: Int, private: Int, groupEncodes: Int) {
        core.queue.sync {
            core.rooms.values.reduce((0, 0, 0)) { sum, room in
                let f = room.bridge.figures
                return (
                    sum.0 + f.sharedFrames.load(ordering: .relaxed), sum.1 + f.privateFrames.load(ordering: .relaxed),
                    sum.2 + f.groupEncodes.load(ordering: .relaxed)
                )
            }
        }
    }

    /// Mixing periods that started more than two periods (20 ms) late on the real-time clock,
    /// over all rooms so far: each is a late frame for every participant of its room.
    public var lateMixingPeriods: Int { core.queue.sync { core.lateTicks() } }
}

/// A weak reference to the server, for the core's events.
struct WeakServer: Sendable {
    weak var value: ConferenceServer?
    init(_ value: ConferenceServer) { self.value = value }
}

struct WeakConferenceDelegate: Sendable {
    weak var value: ConferenceServerDelegate?
    init(_ value: ConferenceServerDelegate) { self.value = value }
}
