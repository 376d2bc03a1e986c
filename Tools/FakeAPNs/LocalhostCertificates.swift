import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made for one test run and a `localhost` server certificate it signed
/// (DNS `localhost` and IP 127.0.0.1), as PEM: what a test's TLS server serves and its client
/// trusts. Nothing outside the test trusts it; it is valid for a day.
public struct LocalhostCertificates: Sendable {
    /// The CA certificate: what a client trusts.
    public let caPEM: String
    /// The server's certificate, signed by the CA.
    public let serverCertificatePEM: String
    /// The server's private key (P-256, PKCS#8).
    public let serverKeyPEM: String

    public init() throws {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("WidgetBus test CA") }
        let now = Date()
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey), notValidBefore: now - 3_600, notValidAfter: now + 86_400,
            issuer: caName, subject: caName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey), notValidBefore: now - 3_600,
            notValidAfter: now + 86_400, issuer: caName, subject: try DistinguishedName { CommonName("localhost") },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        caPEM = try ca.serializeAsPEM().pemString
        serverCertificatePEM = try server.serializeAsPEM().pemString
        serverKeyPEM = serverKey.pemRepresentation
    }
}
