extension Dictionary where Value == Int {
    /// Lowers the count of `key` by one and forgets the key at zero, so a table of counts per
    /// source holds only sources with something open.
    package mutating func decrementCount(_ key: Key) {
        guard let count = self[key] else { return }
        self[key] = count > 1 ? count - 1 : nil
    }
}
