import Foundation

/// One reading of the wall clock against the monotonic clock, bracketed by two monotonic
/// reads: `uncertaintyUs` is how long the reading took, so how far off its offset may be.
struct ClockReading: Equatable {
    let wallUs: Int64
    let monotonicUs: Int64
    let uncertaintyUs: Int64

    var offsetUs: Int64 { wallUs - monotonicUs }

    /// The narrowest of three readings: a thread preempted between its reads makes a wide
    /// one, which the others outdo.
    static func take() -> ClockReading {
        var best = readOnce()
        for _ in 0..<2 {
            let reading = readOnce()
            if reading.uncertaintyUs < best.uncertaintyUs { best = reading }
        }
        return best
    }

    private static func readOnce() -> ClockReading {
        let before = microseconds(CLOCK_MONOTONIC)
        let wall = microseconds(CLOCK_REALTIME)
        let after = microseconds(CLOCK_MONOTONIC)
        return ClockReading(wallUs: wall, monotonicUs: before + (after - before) / 2, uncertaintyUs: after - before)
    }

    private static func microseconds(_ clock: clockid_t) -> Int64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}

/// Maps a camera driver's frame timestamps to wall-clock epoch milliseconds.
///
/// V4L2 drivers stamp frames with the monotonic clock. The wall clock's offset from it is
/// held fixed and moved only when a narrow reading shows it moved by more than
/// `followThresholdUs` (a clock step or a slew), so frames keep the driver's own spacing
/// however late the node reads them. libavdevice's own mapping ("abs") re-estimates the
/// offset from two clock reads at every frame, so a read preempted between them moves
/// that frame's time; and it does not say which clock the driver used.
struct DriverTimestampMapping {
    enum Base: Equatable {
        case monotonic
        /// A driver that already stamps with the wall clock.
        case wallClock
        /// Neither clock: the frame's arrival time is used instead.
        case unusable
    }

    /// How far a first timestamp may be from a clock's reading and still be taken as that clock's.
    static let baseWindowUs: Int64 = 10_000_000
    /// A reading is trusted to move the offset only when it took at most this long.
    static let trustedUncertaintyUs: Int64 = 1000
    /// The offset follows a trusted reading that differs from it by more than this.
    static let followThresholdUs: Int64 = 1000

    private(set) var base: Base?
    private(set) var offsetUs: Int64?

    /// The frame's wall-clock time in epoch ms, or nil when the driver's clock is neither
    /// monotonic nor wall clock.
    mutating func wallMs(driverUs: Int64, reading: ClockReading) -> Int64? {
        let base = self.base ?? Self.base(of: driverUs, reading: reading)
        self.base = base
        switch base {
        case .unusable:
            return nil
        case .wallClock:
            return Self.milliseconds(driverUs)
        case .monotonic:
            let held = offsetUs ?? reading.offsetUs
            let moved = reading.uncertaintyUs <= Self.trustedUncertaintyUs && abs(reading.offsetUs - held) > Self.followThresholdUs
            let offset = moved ? reading.offsetUs : held
            offsetUs = offset
            return Self.milliseconds(driverUs + offset)
        }
    }

    private static func base(of driverUs: Int64, reading: ClockReading) -> Base {
        if abs(driverUs - reading.monotonicUs) < baseWindowUs { return .monotonic }
        if abs(driverUs - reading.wallUs) < baseWindowUs { return .wallClock }
        return .unusable
    }

    /// Rounded to the nearest ms: truncation would turn an exact 100 ms spacing into 99s and 101s.
    private static func milliseconds(_ us: Int64) -> Int64 {
        (us + 500) / 1000
    }
}
