#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import NIOCore
import NIOPosix
import XCTest

@testable import VoiceSIPAgent

/// The scheduling profile of the SDK's signaling threads: applied to each thread of a group,
/// read back from the kernel, and never applied to a group the SDK did not make.
final class SignalingThreadProfileTests: XCTestCase {
    /// Linux 6.12 or later: the kernel takes a custom slice for SCHED_OTHER threads.
    private static var kernelTakesSlices: Bool {
        var name = utsname()
        guard uname(&name) == 0 else { return false }
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let parts = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard parts.count == 2 else { return false }
        return (parts[0], parts[1]) >= (6, 12)
    }

    func testEveryThreadOfTheGroupGetsTheProfileAndTheKernelSaysSo() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let applied = try SignalingThreadProfile.apply(to: group).wait()
        XCTAssertEqual(applied.count, 2)
        let loops = Array(group.makeIterator())
        for (loop, profile) in zip(loops, applied) {
            // What apply reported is what the thread has now, read on that thread.
            XCTAssertEqual(try loop.submit { SignalingThreadProfile.current }.wait(), profile)
            if Self.kernelTakesSlices { XCTAssertTrue(profile.hasShortSlice, "Linux 6.12+ takes a short slice") }
            // Lowered where the process may (root with CAP_SYS_NICE here), otherwise left at 0.
            XCTAssertTrue(profile.niceValue == SignalingThreadProfile.nice || profile.niceValue == 0, "\(profile)")
        }
    }

    func testAGroupTheSDKDidNotMakeIsLeftAsItIs() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let profile = try group.next().submit { SignalingThreadProfile.current }.wait()
        XCTAssertFalse(profile.hasShortSlice)
        XCTAssertEqual(profile.niceValue, 0)
    }
}
