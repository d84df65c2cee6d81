import Foundation
import CAvahi
@testable import AllSparkNode

/// What reaches the node from the bucket others write to and from the LAN.
enum FleetTargets {
    static let nodeRecord = FuzzTarget(name: "node-record", parses: "fleet node.json records in the bucket") { bytes in
        guard let record = try? NodeRecord.decode(bytes) else { return }
        precondition((try? NodeRecord.decode(record.encoded())) == record, "a record that does not read back as written")
        _ = FleetDiscovery.merge(records: [record], announced: [])
    }

    static let archiveManifest = FuzzTarget(name: "archive-manifest", parses: "archive manifests in the bucket") { bytes in
        guard let manifest = try? ArchiveManifest.decode(bytes) else { return }
        precondition((try? ArchiveManifest.decode(manifest.encoded())) == manifest, "a manifest that does not read back as written")
        _ = ChunkNaming.classify(manifest.chunkFile)
    }

    /// ListObjectsV2 and ListMultipartUploads answers, read as the S3 client reads them.
    static let s3Listing = FuzzTarget(name: "s3-listing", parses: "S3 XML listings") { bytes in
        let xml = FuzzInput.text(bytes)
        for key in S3XML.values(of: "Key", in: xml) { _ = ChunkNaming.classify(String(key.split(separator: "/").last ?? "")) }
        _ = S3XML.firstValue(of: "IsTruncated", in: xml)
        _ = S3XML.firstValue(of: "NextContinuationToken", in: xml)
        for (key, upload) in zip(S3XML.values(of: "Key", in: xml), S3XML.values(of: "UploadId", in: xml)) { _ = (key, upload) }
    }

    /// An mDNS TXT record (entries split at 0 bytes) as avahi hands it over, then merged
    /// into the fleet as `fleet` does with an announced node.
    static let mdnsTXT = FuzzTarget(name: "mdns-txt", parses: "mDNS TXT records of announced nodes") { bytes in
        var list: UnsafeMutablePointer<AvahiStringList>?
        for entry in FuzzInput.parts(bytes).prefix(64) {
            list = entry.withUnsafeBufferPointer { avahi_string_list_add_arbitrary(list, $0.baseAddress, $0.count) }
        }
        defer { avahi_string_list_free(list) }
        let txt = AvahiTXTRecord.pairs(list)
        let service = DiscoveredService(host: "fe80::1%eth0", port: 8080, name: txt["name"] ?? "node", hostName: "node.local", txt: txt)
        _ = FleetDiscovery.merge(records: [], announced: [service])
    }

    static let fleetTokens = FuzzTarget(name: "fleet-tokens", parses: "`fleet --tokens` files") { bytes in
        guard let tokens = try? FleetTokens.parse(FuzzInput.text(bytes), file: "tokens") else { return }
        precondition(!tokens.keys.contains("") && !tokens.values.contains(""), "an empty name or token accepted")
    }
}
