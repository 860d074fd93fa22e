package swarm

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/swarm"
)

// translated lists the service keys of the compose model that become
// part of a swarm service (or, like profiles and env_file, were already
// applied by the loader); any other key set on a service is refused.
var translated = map[string]bool{
	"image": true, "command": true, "entrypoint": true, "environment": true, "env_file": true,
	"cpus": true, "mem_limit": true, "pids_limit": true, "deploy": true, "ports": true,
	"expose": true, "healthcheck": true, "depends_on": true, "labels": true, "stop_signal": true,
	"stop_grace_period": true, "tmpfs": true, "volumes": true, "networks": true, "working_dir": true,
	"user": true, "hostname": true, "init": true, "read_only": true, "restart": true,
	"cap_add": true, "cap_drop": true, "sysctls": true, "tty": true, "stdin_open": true,
	"profiles": true, "pull_policy": true,
}

// refusedWhy says, for keys people often write, what a swarm lacks.
var refusedWhy = map[string]string{
	"build":          "a swarm service runs an image and cannot build one; build it first and name it with image:",
	"container_name": "swarm names the containers of a service itself",
	"cpuset":         "a swarm service cannot pin its containers to CPUs",
	"network_mode":   "swarm services attach to networks; there is no network_mode",
	"privileged":     "swarm services cannot run privileged",
	"devices":        "swarm services cannot map devices",
	"links":          "use the service name on the stack's network instead",
	"pid":            "swarm services cannot share a PID namespace",
	"ipc":            "swarm services cannot share an IPC namespace",
}

// deployTranslated lists the keys of deploy: that become part of a swarm
// service.
var deployTranslated = map[string]bool{
	"mode": true, "replicas": true, "labels": true, "resources": true, "restart_policy": true,
	"placement": true, "endpoint_mode": true, "update_config": true,
}

// checkKeys refuses every key set on svc (or its deploy:) that is not
// translated: nothing in the files is silently dropped.
func checkKeys(svc types.ServiceConfig) error {
	for _, k := range setKeys(svc) {
		if !translated[k] {
			why := refusedWhy[k]
			if why == "" {
				why = "sweep does not translate it to a swarm service"
			}
			return &UnsupportedError{Service: svc.Name, Field: k, Why: why}
		}
	}
	if svc.Deploy != nil {
		for _, k := range setKeys(*svc.Deploy) {
			if !deployTranslated[k] {
				return &UnsupportedError{Service: svc.Name, Field: "deploy." + k,
					Why: "sweep does not translate it to a swarm service"}
			}
		}
	}
	return nil
}

// setKeys are the keys of v (a compose-go struct) that hold a value.
func setKeys(v any) []string {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	var out []string
	for k, raw := range m {
		switch string(raw) {
		case "null", "[]", "{}", `""`, "false", "0":
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// specOf translates one compose service into a swarm service spec of
// stack project on network: everything that has a swarm equivalent, or
// an *UnsupportedError naming the first field that has none. Notices say
// what changes meaning on the way (a port's host IP, which swarm cannot
// bind).
func specOf(project string, svc types.ServiceConfig, labels map[string]string, network string) (swarm.ServiceSpec, []string, error) {
	if err := checkKeys(svc); err != nil {
		return swarm.ServiceSpec{}, nil, err
	}
	for name := range svc.Networks {
		if name != "default" {
			return swarm.ServiceSpec{}, nil, &UnsupportedError{Service: svc.Name, Field: "networks." + name,
				Why: "sweep puts every service on the stack's one overlay network"}
		}
	}
	cs, err := containerSpec(project, svc, labels)
	if err != nil {
		return swarm.ServiceSpec{}, nil, err
	}
	res, err := resources(svc)
	if err != nil {
		return swarm.ServiceSpec{}, nil, err
	}
	ep, notices, err := endpoint(svc)
	if err != nil {
		return swarm.ServiceSpec{}, nil, err
	}
	mode, err := serviceMode(svc)
	if err != nil {
		return swarm.ServiceSpec{}, nil, err
	}
	svcLabels := maps.Clone(labels)
	if svc.Deploy != nil {
		maps.Copy(svcLabels, svc.Deploy.Labels)
	}
	maps.Copy(svcLabels, labels)
	spec := swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: project + "_" + svc.Name, Labels: svcLabels},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: cs,
			Resources:     res,
			RestartPolicy: restartPolicy(svc),
			Placement:     placement(svc),
			Networks:      []swarm.NetworkAttachmentConfig{{Target: network, Aliases: []string{svc.Name}}},
		},
		Mode:         mode,
		EndpointSpec: ep,
		// stop-first: a host-mode port cannot be held by the old and the
		// new task at once.
		UpdateConfig: &swarm.UpdateConfig{Parallelism: 1, Order: swarm.UpdateOrderStopFirst,
			FailureAction: swarm.UpdateFailureActionPause},
	}
	return spec, notices, nil
}

// containerSpec is what the service's containers run.
func containerSpec(project string, svc types.ServiceConfig, labels map[string]string) (*swarm.ContainerSpec, error) {
	cs := &swarm.ContainerSpec{
		Image: svc.Image, Command: svc.Entrypoint, Args: svc.Command, Env: envList(svc.Environment),
		Labels: maps.Clone(svc.Labels), Hostname: svc.Hostname, Dir: svc.WorkingDir, User: svc.User,
		Init: svc.Init, StopSignal: svc.StopSignal, TTY: svc.Tty, OpenStdin: svc.StdinOpen,
		ReadOnly: svc.ReadOnly, Sysctls: svc.Sysctls, CapabilityAdd: svc.CapAdd, CapabilityDrop: svc.CapDrop,
	}
	if cs.Labels == nil {
		cs.Labels = map[string]string{}
	}
	maps.Copy(cs.Labels, labels)
	if svc.StopGracePeriod != nil {
		d := time.Duration(*svc.StopGracePeriod)
		cs.StopGracePeriod = &d
	}
	cs.Healthcheck = healthcheck(svc.HealthCheck)
	var err error
	if cs.Mounts, err = mounts(project, svc, labels); err != nil {
		return nil, err
	}
	return cs, nil
}

// envList is the environment as KEY=VALUE, sorted; a variable without a
// value (passed through from the shell, and unset there) is left out.
func envList(env types.MappingWithEquals) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if v := env[k]; v != nil {
			out = append(out, k+"="+*v)
		}
	}
	return out
}

// healthcheck is compose's healthcheck as the engine takes it.
func healthcheck(h *types.HealthCheckConfig) *container.HealthConfig {
	if h == nil {
		return nil
	}
	if h.Disable {
		return &container.HealthConfig{Test: []string{"NONE"}}
	}
	hc := &container.HealthConfig{Test: h.Test}
	dur := func(d *types.Duration) time.Duration {
		if d == nil {
			return 0
		}
		return time.Duration(*d)
	}
	hc.Interval, hc.Timeout = dur(h.Interval), dur(h.Timeout)
	hc.StartPeriod, hc.StartInterval = dur(h.StartPeriod), dur(h.StartInterval)
	if h.Retries != nil {
		hc.Retries = int(*h.Retries)
	}
	return hc
}

// mounts are the service's tmpfs: entries and its volumes: (tmpfs, bind
// and named volumes, which swarm creates on the task's node).
func mounts(project string, svc types.ServiceConfig, labels map[string]string) ([]mount.Mount, error) {
	var out []mount.Mount
	for _, t := range svc.Tmpfs {
		path, opts, _ := strings.Cut(t, ":")
		if opts != "" {
			return nil, &UnsupportedError{Service: svc.Name, Field: "tmpfs", Why: fmt.Sprintf(
				"options %q on %s: write a volumes: entry of type tmpfs with tmpfs.size instead", opts, path)}
		}
		out = append(out, mount.Mount{Type: mount.TypeTmpfs, Target: path})
	}
	for i, v := range svc.Volumes {
		m := mount.Mount{Type: mount.Type(v.Type), Source: v.Source, Target: v.Target, ReadOnly: v.ReadOnly}
		switch v.Type {
		case types.VolumeTypeTmpfs:
			if v.Tmpfs != nil {
				m.TmpfsOptions = &mount.TmpfsOptions{SizeBytes: int64(v.Tmpfs.Size), Mode: os.FileMode(v.Tmpfs.Mode)}
			}
		case types.VolumeTypeBind:
		case types.VolumeTypeVolume:
			// named as stack deploy names them, and labelled for cleanup
			m.Source = project + "_" + v.Source
			m.VolumeOptions = &mount.VolumeOptions{Labels: labels}
		default:
			return nil, &UnsupportedError{Service: svc.Name, Field: fmt.Sprintf("volumes[%d]", i),
				Why: fmt.Sprintf("type %q cannot be mounted into a swarm service", v.Type)}
		}
		out = append(out, m)
	}
	return out, nil
}

// resources are the limits and reservations: deploy.resources, and the
// service-level cpus:, mem_limit: and pids_limit: (which stack deploy
// refuses, but mean the same), the service level winning as in compose.
func resources(svc types.ServiceConfig) (*swarm.ResourceRequirements, error) {
	r := &swarm.ResourceRequirements{Limits: &swarm.Limit{}}
	if svc.Deploy != nil {
		if l := svc.Deploy.Resources.Limits; l != nil {
			if len(l.Devices) > 0 || len(l.GenericResources) > 0 {
				return nil, &UnsupportedError{Service: svc.Name, Field: "deploy.resources.limits",
					Why: "device and generic resource limits have no swarm equivalent"}
			}
			r.Limits = &swarm.Limit{NanoCPUs: int64(l.NanoCPUs.Value() * 1e9), MemoryBytes: int64(l.MemoryBytes), Pids: l.Pids}
		}
		if rv := svc.Deploy.Resources.Reservations; rv != nil {
			r.Reservations = &swarm.Resources{NanoCPUs: int64(rv.NanoCPUs.Value() * 1e9), MemoryBytes: int64(rv.MemoryBytes)}
		}
	}
	if svc.CPUS > 0 {
		r.Limits.NanoCPUs = nanoCPUs(float64(svc.CPUS))
	}
	if svc.MemLimit > 0 {
		r.Limits.MemoryBytes = int64(svc.MemLimit)
	}
	if svc.PidsLimit > 0 {
		r.Limits.Pids = svc.PidsLimit
	}
	return r, nil
}

// nanoCPUs is a CPU limit in cores as the engine counts it.
func nanoCPUs(cpus float64) int64 { return int64(cpus*1e9 + 0.5) }

// endpoint is the service's endpoint mode (vip unless deploy says dnsrr)
// and its published ports, in the mode each names (ingress by default).
func endpoint(svc types.ServiceConfig) (*swarm.EndpointSpec, []string, error) {
	ep := &swarm.EndpointSpec{Mode: swarm.ResolutionModeVIP}
	if svc.Deploy != nil && svc.Deploy.EndpointMode != "" {
		switch m := swarm.ResolutionMode(svc.Deploy.EndpointMode); m {
		case swarm.ResolutionModeVIP, swarm.ResolutionModeDNSRR:
			ep.Mode = m
		default:
			return nil, nil, &UnsupportedError{Service: svc.Name, Field: "deploy.endpoint_mode",
				Why: fmt.Sprintf("%q: swarm knows vip and dnsrr", m)}
		}
	}
	var notices []string
	for i, p := range svc.Ports {
		pc, err := portConfig(p)
		if err != nil {
			return nil, nil, &UnsupportedError{Service: svc.Name, Field: fmt.Sprintf("ports[%d]", i), Why: err.Error()}
		}
		if ep.Mode == swarm.ResolutionModeDNSRR && pc.PublishMode == swarm.PortConfigPublishModeIngress && pc.PublishedPort != 0 {
			return nil, nil, &UnsupportedError{Service: svc.Name, Field: fmt.Sprintf("ports[%d]", i),
				Why: "endpoint_mode dnsrr needs mode: host for a published port (the routing mesh needs a virtual IP)"}
		}
		if p.HostIP != "" {
			notices = append(notices, fmt.Sprintf("service %s: port %d: host IP %s dropped (a swarm publishes on every address of the node)",
				svc.Name, p.Target, p.HostIP))
		}
		ep.Ports = append(ep.Ports, pc)
	}
	return ep, notices, nil
}

// portConfig is one compose port as a swarm port.
func portConfig(p types.ServicePortConfig) (swarm.PortConfig, error) {
	pc := swarm.PortConfig{Name: p.Name, Protocol: swarm.PortConfigProtocol(p.Protocol), TargetPort: p.Target,
		PublishMode: swarm.PortConfigPublishModeIngress}
	if pc.Protocol == "" {
		pc.Protocol = swarm.PortConfigProtocolTCP
	}
	switch p.Mode {
	case "", "ingress":
	case "host":
		pc.PublishMode = swarm.PortConfigPublishModeHost
	default:
		return pc, fmt.Errorf("mode %q: swarm knows ingress and host", p.Mode)
	}
	if p.Published != "" {
		n, err := strconv.ParseUint(p.Published, 10, 16)
		if err != nil {
			return pc, fmt.Errorf("published %q: a swarm port publishes one port, not a range", p.Published)
		}
		pc.PublishedPort = uint32(n)
	}
	return pc, nil
}

// serviceMode is deploy.mode and deploy.replicas (one replica unless
// said otherwise).
func serviceMode(svc types.ServiceConfig) (swarm.ServiceMode, error) {
	one := uint64(1)
	m := swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &one}}
	if svc.Deploy == nil {
		return m, nil
	}
	switch svc.Deploy.Mode {
	case "", "replicated":
	case "global":
		return swarm.ServiceMode{Global: &swarm.GlobalService{}}, nil
	default:
		return m, &UnsupportedError{Service: svc.Name, Field: "deploy.mode", Why: fmt.Sprintf("%q: swarm knows replicated and global", svc.Deploy.Mode)}
	}
	if r := svc.Deploy.Replicas; r != nil {
		n := uint64(max(0, *r))
		m.Replicated.Replicas = &n
	}
	return m, nil
}

// restartPolicy is deploy.restart_policy, else restart: as compose means
// it (no, the default: never; always and unless-stopped: any exit;
// on-failure: a failed one).
func restartPolicy(svc types.ServiceConfig) *swarm.RestartPolicy {
	if svc.Deploy != nil && svc.Deploy.RestartPolicy != nil {
		rp := svc.Deploy.RestartPolicy
		out := &swarm.RestartPolicy{Condition: swarm.RestartPolicyCondition(rp.Condition), MaxAttempts: rp.MaxAttempts}
		if rp.Delay != nil {
			d := time.Duration(*rp.Delay)
			out.Delay = &d
		}
		if rp.Window != nil {
			w := time.Duration(*rp.Window)
			out.Window = &w
		}
		return out
	}
	switch policy, _, _ := strings.Cut(svc.Restart, ":"); policy {
	case "always", "unless-stopped":
		return &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionAny}
	case "on-failure":
		return &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionOnFailure}
	}
	return &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionNone}
}

// placement is deploy.placement's constraints and spread preferences.
func placement(svc types.ServiceConfig) *swarm.Placement {
	p := &swarm.Placement{}
	if svc.Deploy == nil {
		return p
	}
	p.Constraints = slices.Clone(svc.Deploy.Placement.Constraints)
	p.MaxReplicas = svc.Deploy.Placement.MaxReplicas
	for _, pref := range svc.Deploy.Placement.Preferences {
		p.Preferences = append(p.Preferences, swarm.PlacementPreference{Spread: &swarm.SpreadOver{SpreadDescriptor: pref.Spread}})
	}
	return p
}
