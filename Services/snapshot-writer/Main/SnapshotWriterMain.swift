import ArgumentParser
import Snapshots

@main
enum SnapshotWriterMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await SnapshotWriterCommand.main()
    }
}
