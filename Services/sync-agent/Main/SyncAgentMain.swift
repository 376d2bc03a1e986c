import ArgumentParser
import SyncAgent

@main
enum SyncAgentMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await SyncAgentCommand.main()
    }
}
