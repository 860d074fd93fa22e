package results

// ResourceStats is what one service's container used during a measured
// phase, from the Docker Engine's stats (record key resources.<service>).
type ResourceStats struct {
	CPUCoresMean float64 `json:"cpu_cores_mean"`
	CPUCoresMax  float64 `json:"cpu_cores_max"`
	// CPULimitCores is the limit the percentages refer to: the cell's CPU
	// limit, or the engine's online CPUs when the container has none.
	CPULimitCores     float64 `json:"cpu_limit_cores"`
	CPUPctOfLimitMean float64 `json:"cpu_pct_of_limit_mean"`
	// Periods, ThrottledPeriods and ThrottledS are CFS counters counted
	// over the phase (deltas, not the container's lifetime totals).
	Periods          uint64  `json:"periods"`
	ThrottledPeriods uint64  `json:"throttled_periods"`
	ThrottledS       float64 `json:"throttled_s"`
	// CPUWaitCoresMean is CPU the container wanted and did not get: the
	// time its threads were runnable but waiting for a CPU over the
	// phase (the run-queue delay of /proc/<pid>/task/<tid>/schedstat,
	// summed over its tasks alive at the phase's end), over the phase's
	// wall time, in cores. Whether the host's other work or the
	// container's own quota held it back, the container had no CPU to
	// spare while it waited. Nil where sweep cannot read the container's
	// processes (an engine on another machine, sweep in a container, a
	// Kubernetes node).
	CPUWaitCoresMean *float64 `json:"cpu_wait_cores_mean,omitempty"`
	// MemPeakBytes is the highest sampled usage without page cache, as
	// docker stats shows it; MemLimitBytes is the effective limit (the
	// host's memory when the container has none).
	MemPeakBytes  uint64 `json:"mem_peak_bytes"`
	MemLimitBytes uint64 `json:"mem_limit_bytes"`
	// OOMKilled and Restarts compare the container's state at the start
	// and the end of the phase.
	OOMKilled bool `json:"oom_killed"`
	Restarts  int  `json:"restarts"`
	// Samples counts the 1-second readings the figures rest on.
	Samples int `json:"samples"`
}

// WantedPct is the CPU the container used and the CPU it waited for,
// as a percentage of its limit: what it would have used with its CPUs
// to itself. False when the wait was not read.
func (s ResourceStats) WantedPct() (float64, bool) {
	if s.CPUWaitCoresMean == nil || s.CPULimitCores <= 0 {
		return 0, false
	}
	return s.CPUPctOfLimitMean + *s.CPUWaitCoresMean/s.CPULimitCores*100, true
}

// ContainerSample is one second of a container's use.
type ContainerSample struct {
	// T is seconds since the sampler started, at the reading.
	T             float64 `json:"t"`
	CPUCores      float64 `json:"cpu_cores"`
	CPUPctOfLimit float64 `json:"cpu_pct_of_limit"`
	// ThrottledPeriods counts periods throttled since the previous reading.
	ThrottledPeriods uint64 `json:"throttled_periods"`
	MemBytes         uint64 `json:"mem_bytes"`
}

// DBStats summarises the database during a measured phase, from
// pg_stat_activity and pg_stat_database (record key db).
type DBStats struct {
	Sessions DBSessions `json:"sessions"`
	// TPSMean is committed transactions per second in the target
	// database, the sampler's own excluded.
	TPSMean           float64 `json:"tps_mean"`
	RollbacksPerSMean float64 `json:"rollbacks_per_s_mean"`
	// Deadlocks and TempBytes are counted over the phase.
	Deadlocks int64 `json:"deadlocks"`
	TempBytes int64 `json:"temp_bytes"`
	// MaxConnections is the server's max_connections;
	// MaxConnectionsUsedPct is the peak share of it in use by client
	// backends of every database, the sampler's own connection included.
	MaxConnections        int     `json:"max_connections"`
	MaxConnectionsUsedPct float64 `json:"max_connections_used_pct"`
	// Samples counts the readings taken; SamplesMissing those that failed
	// because the database did not answer.
	Samples        int `json:"samples"`
	SamplesMissing int `json:"samples_missing"`
}

// DBSessions counts the client sessions of the target database, the
// sampler's own excluded.
type DBSessions struct {
	TotalMean    float64 `json:"total_mean"`
	TotalPeak    int     `json:"total_peak"`
	ActiveMean   float64 `json:"active_mean"`
	ActivePeak   int     `json:"active_peak"`
	IdleMean     float64 `json:"idle_mean"`
	IdleInTxPeak int     `json:"idle_in_tx_peak"`
	// WaitingPeak is the most sessions seen waiting on a lock at once.
	WaitingPeak int `json:"waiting_peak"`
}

// DBSample is one second of the database as the sampler saw it.
type DBSample struct {
	// T is seconds since the sampler started, at the reading.
	T float64 `json:"t"`
	// Missing is set when the database did not answer; the other fields
	// are then zero.
	Missing  bool `json:"missing,omitempty"`
	Total    int  `json:"total"`
	Active   int  `json:"active"`
	Idle     int  `json:"idle"`
	IdleInTx int  `json:"idle_in_tx"`
	Waiting  int  `json:"waiting"`
	// TPS and RollbacksPerS are rates since the previous good reading.
	TPS           float64 `json:"tps"`
	RollbacksPerS float64 `json:"rollbacks_per_s"`
}

// PoolerStats summarises a connection pooler (PgBouncer) during a measured
// phase, from SHOW POOLS and SHOW STATS once a second (record key pooler).
type PoolerStats struct {
	// Mode is the pool mode (session, transaction, statement).
	Mode            string  `json:"mode,omitempty"`
	ClActivePeak    int     `json:"cl_active_peak"`
	ClWaitingPeak   int     `json:"cl_waiting_peak"`
	SvActiveMean    float64 `json:"sv_active_mean"`
	SvActivePeak    int     `json:"sv_active_peak"`
	MaxWaitPeakS    float64 `json:"max_wait_peak_s"`
	QueriesPerSMean float64 `json:"queries_per_s_mean"`
	Samples         int     `json:"samples"`
	SamplesMissing  int     `json:"samples_missing"`
}
