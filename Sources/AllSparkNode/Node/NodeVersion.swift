/// The node's version: in mDNS TXT records, `allspark-node --version`, and the Debian
/// package's version (`scripts/package.sh` reads it from here).
public enum NodeVersion {
    public static let current = "0.9.0"
}
