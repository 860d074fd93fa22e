package compose

// The labels compose puts on what it creates.
const (
	projectLabel = "com.docker.compose.project"
	serviceLabel = "com.docker.compose.service"
	oneoffLabel  = "com.docker.compose.oneoff"
)
