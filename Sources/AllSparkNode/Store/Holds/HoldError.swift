/// Why a hold could not be placed, released or read; every message says what to do.
public enum HoldError: Error, CustomStringConvertible, Equatable {
    /// The request itself is wrong (end before start, no reason, a year or more).
    case invalid(String)
    /// The holds would take more of the cap than `videoBufferMaxHeldShare` allows.
    case overShare(HoldShareShortfall)
    case unknownID(String)
    /// `HoldCountLimit.maximum` holds are in force already.
    case tooMany(limit: Int)
    /// The holds file cannot be trusted: the node refuses to run rather than forget holds.
    case unreadableFile(path: String, reason: String)
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalid(let message): message
        case .overShare(let shortfall): shortfall.description
        case .tooMany: HoldCountLimit.refusal
        case .unknownID(let id): "no hold with id \(id) (list them with GET /api/holds or `allspark-node hold list`)"
        case .unreadableFile(let path, let reason):
            "the holds file \(path) is damaged (\(reason)); the node will not run without knowing its holds: restore the file from a backup, or move it away to drop every hold on this store"
        case .writeFailed(let path, let reason): "could not write the holds file \(path): \(reason)"
        }
    }
}
