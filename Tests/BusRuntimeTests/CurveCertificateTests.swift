import Foundation
import Testing
import ZeroMQ

@testable import BusRuntime

@Suite struct CurveCertificateTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("certificates-\(UUID().uuidString)")
    }

    static func mode(of file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func aWrittenPairReadsBackTheSecretOwnerOnlyThePublicForAll() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try CurveKeyPair.generate()
        let files = try CurveCertificate.write(keys, name: "gateway", in: directory)
        #expect(files.public.lastPathComponent == "gateway.key" && files.secret.lastPathComponent == "gateway.key_secret")
        #expect(try Self.mode(of: files.secret) == 0o600 && Self.mode(of: files.public) == 0o644)
        #expect(try CurveCertificate.keyPair(from: files.secret) == keys)
        #expect(try CurveCertificate.publicKey(from: files.public) == keys.publicKey)
        #expect(try String(contentsOf: files.public, encoding: .utf8).contains(keys.secretKey) == false)
        #expect(try CurveCertificate.publicKeys(in: directory) == [keys.publicKey], "the secret file is not an allow-list entry")
    }

    @Test func existingFilesAreNeverReplaced() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try CurveKeyPair.generate()
        let files = try CurveCertificate.write(first, name: "app", in: directory)
        #expect(throws: CurveCertificate.Failure.self) { try CurveCertificate.write(try .generate(), name: "app", in: directory) }
        #expect(try CurveCertificate.keyPair(from: files.secret) == first)

        // A public file alone in the way: refused before anything is written.
        let stray = directory.appendingPathComponent("other.key")
        try "public-key = \"\(first.publicKey)\"\n".write(to: stray, atomically: true, encoding: .utf8)
        #expect(throws: CurveCertificate.Failure.self) { try CurveCertificate.write(try .generate(), name: "other", in: directory) }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("other.key_secret").path))
    }

    @Test func aBareZ85KeyFileIsReadAndABrokenCertificateIsRefused() throws {
        let directory = Self.directory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try CurveKeyPair.generate()
        let bare = directory.appendingPathComponent("secret")
        try (keys.secretKey + "\n").write(to: bare, atomically: true, encoding: .utf8)
        chmod(bare.path, 0o644)
        #expect(throws: CurveCertificate.Failure.self, "a secret others may read is refused, as ssh does") {
            try CurveCertificate.keyPair(from: bare)
        }
        chmod(bare.path, 0o600)
        #expect(try CurveCertificate.keyPair(from: bare) == keys)

        let mismatched = directory.appendingPathComponent("mismatched.key_secret")
        let other = try CurveKeyPair.generate()
        try "curve\n    public-key = \"\(other.publicKey)\"\n    secret-key = \"\(keys.secretKey)\"\n".write(
            to: mismatched, atomically: true, encoding: .utf8)
        #expect(throws: CurveCertificate.Failure.self) { try CurveCertificate.keyPair(from: mismatched) }

        let empty = directory.appendingPathComponent("empty.key")
        try "metadata\ncurve\n".write(to: empty, atomically: true, encoding: .utf8)
        #expect(throws: CurveCertificate.Failure.self) { try CurveCertificate.publicKeys(in: directory) }
    }

    @Test("names that are not plain file names are refused", arguments: ["", "../x", "a/b", ".hidden"])
    func badNames(name: String) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: CurveCertificate.Failure.self) { try CurveCertificate.write(try .generate(), name: name, in: directory) }
    }
}
