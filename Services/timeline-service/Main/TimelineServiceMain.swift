import ArgumentParser
import Timelines

@main
enum TimelineServiceMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await TimelineServiceCommand.main()
    }
}
