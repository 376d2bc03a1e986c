import ArgumentParser
import MetricsIngest

@main
enum MetricsIngestMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await MetricsIngestCommand.main()
    }
}
