/// Every fuzz target, by the part of the node whose parser it drives.
enum FuzzTargets {
    static let all: [FuzzTarget] = [
        HTTPRequestTargets.byteRange,
        HTTPRequestTargets.timeQuery,
        HTTPRequestTargets.holdRequest,
        HTTPRequestTargets.configUpdate,
        ProtocolTargets.jsonValue,
        ProtocolTargets.webSocketMessage,
        StoreFileTargets.holdsFile,
        StoreFileTargets.timestampsFile,
        StoreFileTargets.chunkNames,
        StoreFileTargets.configFile,
        StoreFileTargets.runtimeConfigFile,
        VideoTargets.mp4Boxes,
        VideoTargets.partFile,
        VideoTargets.timeStampSEI,
        VideoTargets.signingSEI,
        VideoTargets.signedStream,
        CertificateTargets.certificateChain,
        CertificateTargets.signingInstall,
        FleetTargets.nodeRecord,
        FleetTargets.archiveManifest,
        FleetTargets.s3Listing,
        FleetTargets.mdnsTXT,
        FleetTargets.fleetTokens,
    ]
}
