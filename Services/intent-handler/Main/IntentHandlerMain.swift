import ArgumentParser
import IntentHandling

@main
enum IntentHandlerMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await IntentHandlerCommand.main()
    }
}
