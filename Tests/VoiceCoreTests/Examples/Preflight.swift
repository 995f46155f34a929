// The README's preflight example, as printed there (DocumentationExamplesTests checks the
// text; PreflightTests runs the same calls).
import VoiceCore

func checkTheNetwork(voice: VoiceClient) async throws {
    let report = try await voice.runPreflight(options: PreflightOptions(destination: "echo"))
    print(report.callQuality ?? .degraded, report.mos?.average ?? 0, report.isTURNRequired ?? false)
}
