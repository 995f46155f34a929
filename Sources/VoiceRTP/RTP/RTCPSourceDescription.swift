/// An RTCP source description (SDES, packet type 202; RFC 3550 §6.5): chunks of items per source.
package struct RTCPSourceDescription: Hashable, Sendable {
    /// The type of an SDES item. Values 1-8 are defined by RFC 3550.
    package struct ItemType: RawRepresentable, Hashable, Sendable {
        /// The wire value.
        package var rawValue: UInt8
        /// Creates an item type from its wire value.
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Canonical end-point identifier.
        package static let cname = ItemType(rawValue: 1)
        /// User name.
        package static let name = ItemType(rawValue: 2)
        /// Electronic mail address.
        package static let email = ItemType(rawValue: 3)
        /// Phone number.
        package static let phone = ItemType(rawValue: 4)
        /// Geographic user location.
        package static let location = ItemType(rawValue: 5)
        /// Application or tool name.
        package static let tool = ItemType(rawValue: 6)
        /// Notice/status.
        package static let note = ItemType(rawValue: 7)
        /// Private extensions.
        package static let priv = ItemType(rawValue: 8)

        /// True for the item types RFC 3550 defines (1-8); others are skipped when parsing.
        package var isKnown: Bool { (1...8).contains(rawValue) }
    }

    /// One SDES item: a type and up to 255 bytes of value (UTF-8 text for most types).
    package struct Item: Hashable, Sendable {
        /// The item type.
        package var type: ItemType
        /// The raw value.
        package var value: [UInt8]

        /// Creates an item from raw bytes.
        package init(type: ItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// Creates an item from text, encoded as UTF-8.
        package init(type: ItemType, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }

        /// The value decoded as UTF-8 (invalid sequences replaced).
        package var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// The items describing one source.
    package struct Chunk: Hashable, Sendable {
        /// The source described.
        package var ssrc: UInt32
        /// Its items, in wire order.
        package var items: [Item]

        /// Creates a chunk.
        package init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The CNAME item's text, if present.
        package var cname: String? { items.first { $0.type == .cname }?.text }
    }

    /// Chunks, at most 31.
    package var chunks: [Chunk]

    /// Creates a source description.
    package init(chunks: [Chunk]) { self.chunks = chunks }

    /// Creates a source description carrying one CNAME.
    package init(ssrc: UInt32, cname: String) {
        self.init(chunks: [Chunk(ssrc: ssrc, items: [Item(type: .cname, text: cname)])])
    }

    /// RTCP packet type.
    package static let packetType: UInt8 = 202
}
