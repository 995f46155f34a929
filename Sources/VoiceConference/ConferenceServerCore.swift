import Dispatch
import Foundation
import VoiceCore
import VoiceMedia
import VoiceSupport

/// The rooms of a ``ConferenceServer`` and the calls in them.
///
/// Threading: everything but `server` is touched on ``queue`` only (invites and call
/// callbacks are delivered there; the server's control calls hop onto it), hence
/// `@unchecked Sendable`. The bridges' clock threads reach it only through `queue.async`.
final class ConferenceServerCore: @unchecked Sendable {
    final class Room {
        let id: String
        let bridge: ConferenceBridge
        let isKnown: Bool
        var seats: [UUID: Seat] = [:]
        /// Connected participants in order of joining.
        var joined: [ConferenceParticipant] = []
        /// The room's recording, while one runs.
        var recording: AudioRecording?
        init(id: String, bridge: ConferenceBridge, isKnown: Bool) {
            self.id = id
            self.bridge = bridge
            self.isKnown = isKnown
        }
    }

    struct Seat {
        let participant: ConferenceParticipant
        let call: Call
        let slot: Int
        let port: ConferencePort
        var connected = false
    }

    let queue = DispatchQueue(label: "voice-conference")
    let client: VoiceClient
    let options: ConferenceServerOptions
    let clock: SoftwareAudioClock
    let measuresLateness: Bool
    let continuation: AsyncStream<ConferenceEvent>.Continuation
    let delegate: WeakConferenceDelegate?
    let delegateQueue: DispatchQueue
    let server = Locked<WeakServer?>(nil)
    private(set) var rooms: [String: Room] = [:]
    /// The room of each call, by the call's UUID.
    private var roomOfCall: [UUID: String] = [:]
    /// Late ticks of rooms that have closed.
    private var closedLateTicks = 0
    private(set) lazy var invites = InviteReceiver(core: self)
    private lazy var callEvents = ParticipantCallEvents(core: self)

    init(
        client: VoiceClient, options: ConferenceServerOptions, clock: SoftwareAudioClock, measuresLateness: Bool,
        continuation: AsyncStream<ConferenceEvent>.Continuation, delegate: WeakConferenceDelegate?, delegateQueue: DispatchQueue
    ) {
        self.client = client
        self.options = options
        self.clock = clock
        self.measuresLateness = measuresLateness
        self.continuation = continuation
        self.delegate = delegate
        self.delegateQueue = delegateQueue
    }

    // MARK: - Events

    func emit(_ event: ConferenceEvent) {
        continuation.yield(event)
        guard let delegate, let server = server.withLock({ $0?.value }) else { return }
        delegateQueue.async { delegate.value?.conferenceServer(server, didReport: event) }
    }

    // MARK: - Rooms

    @discardableResult
    func openRoom(_ id: String) -> Room {
        if let room = rooms[id] { return room }
        let bridge = ConferenceBridge(
            capacity: options.maximumParticipants, clock: clock, measuresLateness: measuresLateness,
            sharesEncoding: options.sharesEncoding
        ) { [weak self] slot, talking in
            guard let core = self else { return }
            core.queue.async { core.talkChanged(room: id, slot: slot, talking: talking) }
        }
        let room = Room(id: id, bridge: bridge, isKnown: options.knownRooms.contains(id))
        rooms[id] = room
        emit(.roomCreated(room: id))
        return room
    }

    /// Closes `room` (its bridge stops); a known room stays open, only its bridge stops ticking.
    private func closeIfEmpty(_ room: Room, force: Bool = false) {
        guard room.seats.isEmpty else { return }
        stopRecording(room)
        room.bridge.stop()
        guard force || !room.isKnown else { return }
        closedLateTicks += room.bridge.lateTicks.load(ordering: .relaxed)
        rooms[room.id] = nil
        emit(.roomEnded(room: room.id))
    }

    func endRoom(_ id: String) {
        guard let room = rooms[id] else { return }
        for seat in room.seats.values.sorted(by: { $0.slot < $1.slot }) {
            leave(seat.participant.id, error: nil)
            seat.call.disconnect()
        }
        closeIfEmpty(room, force: true)
    }

    func endAll() {
        for id in rooms.keys.sorted() { endRoom(id) }
    }

    func lateTicks() -> Int {
        rooms.values.reduce(closedLateTicks) { $0 + $1.bridge.lateTicks.load(ordering: .relaxed) }
    }

    // MARK: - Calls

    func received(_ invite: CallInvite) {
        let id: String
        switch ConferenceRoomLookup(requestURI: invite.requestURI, headers: invite.requestHeaders, forms: options.addressing) {
        case .refused(let statusCode, let reason):
            invite.reject(statusCode: statusCode, reasonPhrase: reason)
            return
        case .room(let room):
            id = room
        }
        if rooms[id] == nil, options.knownRoomsOnly, !options.knownRooms.contains(id) {
            invite.reject(statusCode: 404, reasonPhrase: "Conference Room Not Found")
            return
        }
        let room = openRoom(id)
        let port = ConferencePort(skipsAnnouncedSilence: options.skipsAnnouncedSilence)
        let slot: Int?
        do {
            // The room's mixer holds `maximumParticipants`: attach says when it is full.
            slot = try room.bridge.attach(port)
        } catch {
            invite.reject(statusCode: 500, reasonPhrase: "Conference Bridge Unavailable")
            closeIfEmpty(room)
            return
        }
        guard let slot else {
            invite.reject(statusCode: 486, reasonPhrase: "Conference Room Full")
            return
        }
        let participant = ConferenceParticipant(room: id, id: invite.uuid, from: invite.from, callSid: invite.callSid)
        let queue = self.queue
        let call = invite.accept(
            options: AcceptOptions(callInvite: invite) { builder in
                builder.audioDevice = port
                builder.delegateQueue = queue
            },
            delegate: callEvents)
        room.seats[participant.id] = Seat(participant: participant, call: call, slot: slot, port: port)
        roomOfCall[participant.id] = id
    }

    func connected(_ call: Call) {
        guard let id = roomOfCall[call.uuid], let room = rooms[id], var seat = room.seats[call.uuid], !seat.connected else { return }
        seat.connected = true
        room.seats[call.uuid] = seat
        room.joined.append(seat.participant)
        emit(.participantJoined(seat.participant))
        // Where the peer announces its levels (RFC 6464, when its offer mapped them), talking is read from them.
        let slot = seat.slot
        let callID = call.uuid
        let roomID = room.id
        call.receivedAudioLevel { [weak self] source in
            guard let source, let core = self else { return }
            core.queue.async {
                guard let room = core.rooms[roomID], room.seats[callID]?.slot == slot else { return }
                room.bridge.setLevelSource(slot, source)
            }
        }
    }

    /// `call`'s participant leaves its room (hung up, failed, removed, the room ended).
    func leave(_ callID: UUID, error: VoiceError?) {
        guard let id = roomOfCall.removeValue(forKey: callID), let room = rooms[id],
            let seat = room.seats.removeValue(forKey: callID)
        else { return }
        room.bridge.detach(seat.slot)
        if seat.connected {
            room.joined.removeAll { $0.id == callID }
            emit(.participantLeft(seat.participant, error: error))
        }
        closeIfEmpty(room)
    }

    /// Starts `recording` of `id`'s mix; false when the room is not open or already recording.
    func startRecording(_ recording: AudioRecording, room id: String) -> Bool {
        guard let room = rooms[id], room.recording == nil else { return false }
        room.recording = recording
        room.bridge.setRecording(recording.tap)
        recording.start()
        return true
    }

    func stopRecording(_ room: Room) {
        guard let recording = room.recording else { return }
        room.recording = nil
        room.bridge.setRecording(nil)
        recording.stop()
    }

    private func seat(_ participant: ConferenceParticipant) -> (Room, Seat)? {
        guard let room = rooms[participant.room], let seat = room.seats[participant.id] else { return nil }
        return (room, seat)
    }

    func setMuted(_ muted: Bool, _ participant: ConferenceParticipant) {
        guard let (room, seat) = seat(participant), room.bridge.isMuted(seat.slot) != muted else { return }
        room.bridge.setMuted(seat.slot, muted)
        emit(.muted(seat.participant, muted))
    }

    func isMuted(_ participant: ConferenceParticipant) -> Bool {
        guard let (room, seat) = seat(participant) else { return false }
        return room.bridge.isMuted(seat.slot)
    }

    func isTalking(_ participant: ConferenceParticipant) -> Bool {
        guard let (room, seat) = seat(participant) else { return false }
        return room.bridge.isTalking(seat.slot)
    }

    func remove(_ participant: ConferenceParticipant) {
        guard let (_, seat) = seat(participant) else { return }
        leave(participant.id, error: nil)
        seat.call.disconnect()
    }

    private func talkChanged(room id: String, slot: Int, talking: Bool) {
        guard let room = rooms[id], let seat = room.seats.values.first(where: { $0.slot == slot }), seat.connected else { return }
        emit(.talking(seat.participant, talking))
    }
}

/// Takes the client's call invites for the server (on its queue).
final class InviteReceiver: NotificationDelegate, AnswersWithoutRinging, @unchecked Sendable {
    // @unchecked: `core` is set once and the callbacks come on the core's queue.
    private weak var core: ConferenceServerCore?
    init(core: ConferenceServerCore) { self.core = core }

    func callInviteReceived(_ callInvite: CallInvite) { core?.received(callInvite) }
    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}
}

/// The participants' calls' callbacks (on the core's queue).
final class ParticipantCallEvents: CallDelegate, @unchecked Sendable {
    // @unchecked: as ``InviteReceiver``.
    private weak var core: ConferenceServerCore?
    init(core: ConferenceServerCore) { self.core = core }

    func callDidConnect(_ call: Call) { core?.connected(call) }
    func call(_ call: Call, didFailToConnectWithError error: VoiceError) { core?.leave(call.uuid, error: error) }
    func call(_ call: Call, didDisconnectWithError error: VoiceError?) { core?.leave(call.uuid, error: error) }
}
