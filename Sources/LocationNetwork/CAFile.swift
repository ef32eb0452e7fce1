import NIOSSL

/// The certificates of `--ca-file`, which replace the system's trust store for checking the service's (U23).
public struct CAFile: Sendable {
    public let path: String
    let certificates: [NIOSSLCertificate]

    /// The most certificates read from the file: a system bundle holds about 150.
    static let maximumCertificates = 1000

    /// Reads the PEM certificates of `path`, or says why they cannot be used.
    public static func load(path: String) -> Result<CAFile, InvalidSettings> {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            return .failure(
                InvalidSettings("--ca-file", "\(path) cannot be read as PEM certificates (\(error)): give a PEM file")
            )
        }
        guard !certificates.isEmpty else {
            return .failure(InvalidSettings("--ca-file", "\(path) holds no PEM certificate"))
        }
        guard certificates.count <= maximumCertificates else {
            return .failure(InvalidSettings("--ca-file", "\(path) holds more than \(maximumCertificates) certificates"))
        }
        return .success(CAFile(path: path, certificates: certificates))
    }
}
