/// The ITU-T G.107 E-model, reduced to what a receiver can measure, turning delay and loss
/// into an estimated MOS (1.0 … 4.5).
package struct EModel: Hashable, Sendable {
    /// Equipment impairment of the codec at zero loss (Ie). G.711: 0; Opus at voice bitrates ≈ 0-10.
    package var equipmentImpairment: Double
    /// Packet-loss robustness of the codec and its concealment (Bpl). G.711 with PLC: 25.1.
    package var lossRobustness: Double

    package init(equipmentImpairment: Double, lossRobustness: Double) {
        self.equipmentImpairment = equipmentImpairment
        self.lossRobustness = lossRobustness
    }

    /// Figures for a codec: G.711 per G.113 Appendix I; Opus with the values WebRTC-style
    /// estimators use for a wideband codec with FEC and PLC.
    package static func forCodec(_ name: String) -> EModel {
        switch name.lowercased() {
        case "pcmu", "pcma": return EModel(equipmentImpairment: 0, lossRobustness: 25.1)
        // G.113 gives G.722 no narrowband Ie (it is rated on the wideband scale); like G.711 it
        // is transparent at 64 kbit/s and conceals no better (its decoder has no PLC of its own).
        case "g722": return EModel(equipmentImpairment: 0, lossRobustness: 25.1)
        default: return EModel(equipmentImpairment: 0, lossRobustness: 30)
        }
    }

    /// The transmission rating R for a one-way mouth-to-ear delay and a packet-loss percentage.
    package func rating(oneWayDelayMs d: Double, packetLossPercent ppl: Double, burstRatio: Double = 1) -> Double {
        let r0 = 93.2  // default Ro − Is with G.107 defaults
        let id = 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
        let p = max(0, min(100, ppl))
        let ie = equipmentImpairment + (95 - equipmentImpairment) * p / (p / max(1, burstRatio) + lossRobustness)
        return r0 - id - ie
    }

    /// The MOS for a rating R (G.107 Annex B).
    package static func mos(rating r: Double) -> Double {
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6
    }

    /// Estimated MOS for a one-way delay and a loss percentage.
    package func mos(oneWayDelayMs d: Double, packetLossPercent p: Double) -> Double {
        EModel.mos(rating: rating(oneWayDelayMs: d, packetLossPercent: p))
    }
}
