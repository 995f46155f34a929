import Foundation
import XCTest

@testable import VoiceFuzzing

/// Every harness over its committed corpus: the seeds, and each input a fuzzing run found
/// (renamed `crash-…`/`leak-…`/`timeout-…` regression inputs stay here after their fix).
/// Without the sanitizer and coverage this is no fuzzing, but it replays every finding on
/// every test run.
final class FuzzCorpusTests: XCTestCase {
    func testEveryHarnessHasASeedCorpus() throws {
        let root = try XCTUnwrap(Bundle.module.url(forResource: "Corpus", withExtension: nil))
        for harness in FuzzHarness.all {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(harness.name).path)) ?? []
            XCTAssertFalse(files.isEmpty, "\(harness.name) has no seeds")
        }
    }

    func testEveryCorpusInputRunsClean() throws {
        let root = try XCTUnwrap(Bundle.module.url(forResource: "Corpus", withExtension: nil))
        var ran = 0
        for harness in FuzzHarness.all {
            let directory = root.appendingPathComponent(harness.name)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                harness.run(Array(data))
                ran += 1
            }
        }
        XCTAssertGreaterThan(ran, FuzzHarness.all.count)
    }

    func testHarnessNamesAreUnique() {
        XCTAssertEqual(Set(FuzzHarness.all.map(\.name)).count, FuzzHarness.all.count)
    }
}
