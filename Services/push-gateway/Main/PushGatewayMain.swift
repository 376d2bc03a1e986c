import ArgumentParser
import PushGateway

@main
enum PushGatewayMain {
    /// From an async context, so that the command runs as the async command it is.
    static func main() async {
        await PushGatewayCommand.main()
    }
}
