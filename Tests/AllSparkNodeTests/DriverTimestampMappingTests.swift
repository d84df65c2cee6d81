import Testing
@testable import AllSparkNode

/// A camera driver's timestamps mapped to wall clock. The readings are written out here (a
/// loaded box's: late, some of them wide); the real clocks and a real driver are the camera
/// suite's (Tests/camera, vivid in a VM).
@Suite("camera driver timestamps to wall clock")
struct DriverTimestampMappingTests {
    /// Monotonic 1000 s at boot, wall clock 1_796_000_000 s: the offset between them.
    static let offsetUs: Int64 = 1_796_000_000_000_000 - 1_000_000_000

    static func reading(monotonicUs: Int64, offsetErrorUs: Int64 = 0, uncertaintyUs: Int64 = 20, stepUs: Int64 = 0) -> ClockReading {
        ClockReading(wallUs: monotonicUs + offsetUs + offsetErrorUs + stepUs, monotonicUs: monotonicUs, uncertaintyUs: uncertaintyUs)
    }

    @Test("frames read late, with readings off by up to the trusted uncertainty, keep the driver's exact spacing")
    func spacingSurvivesLateReads() {
        var mapping = DriverTimestampMapping()
        let firstUs: Int64 = 1_000_000_000
        var stamps: [Int64] = []
        // Frames 100 ms apart in the driver; the node reads each 3-380 ms later, and each
        // reading's offset is off by up to ±0.9 ms (what a narrow reading can be off by).
        let lateness: [Int64] = [3_000, 380_000, 12_000, 250_000, 7_000, 90_000, 5_000, 300_000]
        let errors: [Int64] = [0, 900, -900, 400, -700, 850, -100, 600]
        for frame in 0..<40 {
            let driverUs = firstUs + Int64(frame) * 100_000
            let reading = Self.reading(monotonicUs: driverUs + lateness[frame % 8], offsetErrorUs: errors[frame % 8])
            stamps.append(mapping.wallMs(driverUs: driverUs, reading: reading)!)
        }
        #expect(mapping.base == .monotonic)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 == 100 }, "\(stamps)")
        #expect(stamps[0] == (firstUs + Self.offsetUs + 500) / 1000, "the driver's time, not the reading's")
    }

    @Test("a wall-clock step is followed at the next trusted reading; a wide reading is not trusted")
    func clockStepIsFollowed() {
        var mapping = DriverTimestampMapping()
        let firstUs: Int64 = 1_000_000_000
        let first = mapping.wallMs(driverUs: firstUs, reading: Self.reading(monotonicUs: firstUs + 5_000))!
        // The wall clock steps 2.5 s ahead (NTP's first sync), read while preempted: not trusted yet.
        let wide = mapping.wallMs(driverUs: firstUs + 100_000,
                                  reading: Self.reading(monotonicUs: firstUs + 105_000, uncertaintyUs: 40_000, stepUs: 2_500_000))!
        #expect(wide - first == 100)
        let stepped = mapping.wallMs(driverUs: firstUs + 200_000,
                                     reading: Self.reading(monotonicUs: firstUs + 205_000, stepUs: 2_500_000))!
        #expect(stepped - first == 2_700)
        let next = mapping.wallMs(driverUs: firstUs + 300_000,
                                  reading: Self.reading(monotonicUs: firstUs + 305_000, offsetErrorUs: 800, stepUs: 2_500_000))!
        #expect(next - stepped == 100, "held again after the step")
    }

    @Test("a driver that stamps with the wall clock is taken as it is; one that stamps with neither clock gives nil")
    func otherBases() {
        var wallDriver = DriverTimestampMapping()
        let wallUs: Int64 = 1_796_000_123_456_789
        let reading = ClockReading(wallUs: wallUs + 30_000, monotonicUs: 1_000_000_000, uncertaintyUs: 20)
        #expect(wallDriver.wallMs(driverUs: wallUs, reading: reading) == 1_796_000_123_457)
        #expect(wallDriver.base == .wallClock)

        var strangeDriver = DriverTimestampMapping()
        #expect(strangeDriver.wallMs(driverUs: 42_000_000, reading: reading) == nil)
        #expect(strangeDriver.base == .unusable)
        #expect(strangeDriver.wallMs(driverUs: 1_000_000_000, reading: reading) == nil, "decided once, at the first frame")
    }

    @Test("a reading of the real clocks is narrow and agrees with them")
    func realReading() {
        let reading = ClockReading.take()
        let wallMs = WallClock.nowMs()
        #expect(reading.uncertaintyUs >= 0)
        #expect(abs(reading.wallUs / 1000 - wallMs) < 60_000)
        #expect(abs(reading.monotonicUs / 1000 - WallClock.monotonicMs()) < 60_000)
    }
}
