package results

// The proof-of-delivery methods (Delivery.Method).
const (
	// DeliveryNetwork compares the driver's bytes sent with the bytes the
	// target container's network interfaces received, from the engine's
	// counters read just before and just after the measured phase.
	DeliveryNetwork = "network"
	// DeliveryHostSocket is for a target without network counters of its
	// own (network_mode host, or another container's network): the
	// listening socket of the URL's port must belong to a process of the
	// target container, and the target must have used CPU for the load.
	DeliveryHostSocket = "host-socket"
	// DeliveryNone says no proof was possible; Note says why.
	DeliveryNone = "none"
)

// Delivery is the proof that a cell's measured load reached the target
// under test (record key delivery): what the driver sent beside what the
// target was seen to receive over the same phase.
type Delivery struct {
	Method string `json:"method"`
	// SentBytes is the driver's Measurement.BytesSent.
	SentBytes int64 `json:"sent_bytes"`
	// ReceivedBytes and ReceivedPackets are the target container's
	// received bytes and packets over every interface, from the engine's
	// counters (network method). They count everything that came in: the
	// requests, TCP's own segments and the database's replies.
	ReceivedBytes   int64 `json:"received_bytes"`
	ReceivedPackets int64 `json:"received_packets,omitempty"`
	// Ratio is ReceivedBytes / SentBytes when both were compared.
	Ratio float64 `json:"ratio,omitempty"`
	// WindowS is how many seconds the received counters cover: the
	// measured phase and the moments around it that bracket it.
	WindowS float64 `json:"window_s,omitempty"`
	// Listeners names the processes holding the URL's listening socket
	// (host-socket method), e.g. "pid 812 demoapp (target)";
	// ListenerIsTarget is set when every one of them is in the target.
	Listeners        []string `json:"listeners,omitempty"`
	ListenerIsTarget bool     `json:"listener_is_target,omitempty"`
	// TargetCPUS is the CPU time the target used over the window, in
	// seconds (host-socket method).
	TargetCPUS float64 `json:"target_cpu_s,omitempty"`
	// Note says why no proof was possible, or what limited it.
	Note string `json:"note,omitempty"`
}
