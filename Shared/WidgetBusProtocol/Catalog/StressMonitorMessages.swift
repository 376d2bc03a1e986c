import WidgetDomain

extension StressMonitorIntent {
    /// `RecordStressMeasurement` (body: ``StressMeasurementInput``), `UpdateWidgetIntent`.
    init?(type: MessageType, body: any Decoder) throws {
        switch type {
        case .recordStressMeasurement: self = .recordStressMeasurement(try StressMeasurementInput(from: body))
        case .updateWidget: self = .updateWidget
        default: return nil
        }
    }
}
