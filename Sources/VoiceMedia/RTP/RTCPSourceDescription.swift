/// An RTCP source description (SDES, packet type 202; RFC 3550 §6.5): chunks of items per source.
public struct RTCPSourceDescription: Hashable, Sendable {
    /// The type of an SDES item. Values 1-8 are defined by RFC 3550.
    public struct ItemType: RawRepresentable, Hashable, Sendable {
        /// The wire value.
        public var rawValue: UInt8
        /// Creates an item type from its wire value.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Canonical end-point identifier.
        public static let cname = ItemType(rawValue: 1)
        /// User name.
        public static let name = ItemType(rawValue: 2)
        /// Electronic mail address.
        public static let email = ItemType(rawValue: 3)
        /// Phone number.
        public static let phone = ItemType(rawValue: 4)
        /// Geographic user location.
        public static let location = ItemType(rawValue: 5)
        /// Application or tool name.
        public static let tool = ItemType(rawValue: 6)
        /// Notice/status.
        public static let note = ItemType(rawValue: 7)
        /// Private extensions.
        public static let priv = ItemType(rawValue: 8)

        /// True for the item types RFC 3550 defines (1-8); others are skipped when parsing.
        public var isKnown: Bool { (1...8).contains(rawValue) }
    }

    /// One SDES item: a type and up to 255 bytes of value (UTF-8 text for most types).
    public struct Item: Hashable, Sendable {
        /// The item type.
        public var type: ItemType
        /// The raw value.
        public var value: [UInt8]

        /// Creates an item from raw bytes.
        public init(type: ItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// Creates an item from text, encoded as UTF-8.
        public init(type: ItemType, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }

        /// The value decoded as UTF-8 (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// The items describing one source.
    public struct Chunk: Hashable, Sendable {
        /// The source described.
        public var ssrc: UInt32
        /// Its items, in wire order.
        public var items: [Item]

        /// Creates a chunk.
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The CNAME item's text, if present.
        public var cname: String? { items.first { $0.type == .cname }?.text }
    }

    /// Chunks, at most 31.
    public var chunks: [Chunk]

    /// Creates a source description.
    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// Creates a source description carrying one CNAME.
    public init(ssrc: UInt32, cname: String) {
        self.init(chunks: [Chunk(ssrc: ssrc, items: [Item(type: .cname, text: cname)])])
    }

    /// RTCP packet type.
    public static let packetType: UInt8 = 202
}
