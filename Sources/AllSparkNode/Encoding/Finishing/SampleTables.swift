/// Writes the sample tables of a progressive file (`stts`, `ctts`, `stss`, `stsc`, `stsz`,
/// `stco` or `co64`) for samples that stay where the fragments put them.
struct SampleTables {
    let samples: [FragmentSample]
    let runs: [SampleRun]

    /// Durations as stored, except that a last sample of duration 0 (its length unknown to
    /// the muxer) lasts as long as the one before it, so the track's duration counts it.
    var durations: [UInt32] {
        var durations = samples.map(\.duration)
        if durations.count > 1, durations[durations.count - 1] == 0 { durations[durations.count - 1] = durations[durations.count - 2] }
        return durations
    }

    /// The track's length in its media time scale.
    var mediaDuration: UInt64 { durations.reduce(0) { $0 + UInt64($1) } }

    /// The earliest presentation time in the media time scale: where an edit list must start
    /// the track so that its first frame shows at 0.
    var firstPresentationTime: Int64 {
        var decodeTime: Int64 = 0
        var earliest = Int64.max
        for (sample, duration) in zip(samples, durations) {
            earliest = min(earliest, decodeTime + Int64(sample.compositionOffset))
            decodeTime += Int64(duration)
        }
        return earliest == .max ? 0 : earliest
    }

    func write(into writer: inout BoxWriter) {
        writeTimeToSample(into: &writer)
        writeCompositionOffsets(into: &writer)
        writeSyncSamples(into: &writer)
        writeSampleToChunk(into: &writer)
        writeSampleSizes(into: &writer)
        writeChunkOffsets(into: &writer)
    }

    private func writeTimeToSample(into writer: inout BoxWriter) {
        let entries = runLengths(durations)
        writer.fullBox("stts") { box in
            box.append(UInt32(entries.count))
            for (count, duration) in entries {
                box.append(count)
                box.append(duration)
            }
        }
    }

    /// Only when some sample shows at another time than it decodes (B-frames); version 1
    /// when an offset is negative.
    private func writeCompositionOffsets(into writer: inout BoxWriter) {
        guard samples.contains(where: { $0.compositionOffset != 0 }) else { return }
        let entries = runLengths(samples.map { UInt32(bitPattern: $0.compositionOffset) })
        let signed = samples.contains { $0.compositionOffset < 0 }
        writer.fullBox("ctts", version: signed ? 1 : 0) { box in
            box.append(UInt32(entries.count))
            for (count, offset) in entries {
                box.append(count)
                box.append(offset)
            }
        }
    }

    /// Left out when every sample is a sync sample, which is what its absence means.
    private func writeSyncSamples(into writer: inout BoxWriter) {
        let syncNumbers = samples.indices.filter { samples[$0].isSync }.map { UInt32($0 + 1) }
        guard syncNumbers.count < samples.count else { return }
        writer.fullBox("stss") { box in
            box.append(UInt32(syncNumbers.count))
            for number in syncNumbers { box.append(number) }
        }
    }

    /// One chunk per fragment run; consecutive runs of equal length share an entry.
    private func writeSampleToChunk(into writer: inout BoxWriter) {
        var entries: [(firstChunk: UInt32, samplesPerChunk: UInt32)] = []
        for (index, run) in runs.enumerated() where entries.last?.samplesPerChunk != UInt32(run.samples.count) {
            entries.append((UInt32(index + 1), UInt32(run.samples.count)))
        }
        writer.fullBox("stsc") { box in
            box.append(UInt32(entries.count))
            for entry in entries {
                box.append(entry.firstChunk)
                box.append(entry.samplesPerChunk)
                box.append(UInt32(1))  // sample_description_index
            }
        }
    }

    private func writeSampleSizes(into writer: inout BoxWriter) {
        let commonSize = samples.allSatisfy { $0.size == samples.first?.size } ? samples.first?.size ?? 0 : 0
        writer.fullBox("stsz") { box in
            box.append(commonSize)
            box.append(UInt32(samples.count))
            if commonSize == 0 { for sample in samples { box.append(sample.size) } }
        }
    }

    /// `co64` only when a run starts beyond 4 GiB.
    private func writeChunkOffsets(into writer: inout BoxWriter) {
        let offsets = runs.map { samples[$0.samples.lowerBound].offset }
        let needs64 = offsets.contains { $0 > UInt64(UInt32.max) }
        writer.fullBox(needs64 ? "co64" : "stco") { box in
            box.append(UInt32(offsets.count))
            for offset in offsets {
                if needs64 { box.append(offset) } else { box.append(UInt32(offset)) }
            }
        }
    }

    private func runLengths(_ values: [UInt32]) -> [(count: UInt32, value: UInt32)] {
        var entries: [(count: UInt32, value: UInt32)] = []
        for value in values {
            if let last = entries.last, last.value == value {
                entries[entries.count - 1].count += 1
            } else {
                entries.append((1, value))
            }
        }
        return entries
    }
}
