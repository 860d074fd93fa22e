package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// LabelLoad marks the load's Jobs and their pods: "warmup" or "measure",
// the phase they drive.
const LabelLoad = "sweep.load"

// DriverOptions configure the load Jobs.
type DriverOptions struct {
	// Image holds the static sweep binary (make demo-images: sweep-drive);
	// the nodes must have it or be able to pull it (IfNotPresent).
	Image string
	// Command runs `sweep drive` in Image; nil means remote.DefaultCommand.
	Command []string
	// Namespace is the run's namespace, where the Jobs run, so that the
	// target's Service name resolves.
	Namespace string
	// Labels are the run's labels, put on the Job and its pod.
	Labels map[string]string
	// NodeSelector places the load's pod (--place load=KEY=VALUE).
	NodeSelector map[string]string
	// Builtin are the built-in driver's options on the far end.
	Builtin builtin.Options
	// StartTimeout bounds the time from creating a Job to its pod
	// running; zero means remote.DefaultStartTimeout.
	StartTimeout time.Duration
	// K6, when set, runs k6 instead of the built-in driver (see K6Job).
	K6 *remote.K6Options
}

// The k6 load's pod: an init container from the load image copies the
// static sweep binary (`sweep drive --install`) into an emptyDir the
// load's container, from the k6 image, mounts at remote.K6Mount and runs
// it from; `sweep drive` keeps k6's files there too (--dir), where the
// k6 image's user may write whatever it is.
const k6Volume = "sweep"

// Driver runs the built-in driver's phases, or k6's (DriverOptions.K6),
// as Kubernetes Jobs in the run's namespace: `sweep drive` in a pod with
// restart policy Never and no retries, its request in the environment,
// its result read from the pod's log (remote's framing), the Job deleted
// at the end. k6 runs in the pod as a local k6 runs beside sweep (package
// remote's k6.go): its script in the request, its summary export and log
// back into the cell's directory.
type Driver struct {
	c    *Client
	opts DriverOptions
}

var _ sweep.Driver = (*Driver)(nil)

// endGrace bounds the result's return after the phase's duration,
// deleteTimeout the Job's deletion, which runs after a cancel too, and
// podStateTimeout the look at the pod for an error's words.
const (
	endGrace        = 30 * time.Second
	deleteTimeout   = 30 * time.Second
	podStateTimeout = 5 * time.Second
)

// NewDriver is a driver that runs its Jobs through c. Built-in options
// that cannot travel in the pod's environment are remote.CheckRequest's
// error.
func NewDriver(c *Client, opts DriverOptions) (*Driver, error) {
	if opts.Image == "" {
		return nil, remote.ErrNoImage
	}
	if opts.K6 != nil {
		if err := opts.K6.Check(); err != nil {
			return nil, err
		}
	} else if err := remote.CheckRequest(opts.Builtin); err != nil {
		return nil, err
	}
	if opts.Command == nil {
		opts.Command = remote.DefaultCommand
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = remote.DefaultStartTimeout
	}
	return &Driver{c: c, opts: opts}, nil
}

// Name is the far end's driver, "builtin" or "k6"; the record tells a
// remote run by its load_node.
func (d *Driver) Name() string {
	if d.opts.K6 != nil {
		return "k6"
	}
	return "builtin"
}

// Run drives req's load from a one-shot Job and returns the far end's
// measurement with the node its pod ran on. A closed req.Stop suspends
// the Job, whose controller then ends the pod with SIGTERM, which the far
// end takes as its stop. The Job is deleted in every case.
func (d *Driver) Run(ctx context.Context, req sweep.LoadRequest) (m results.Measurement, err error) {
	if d.opts.K6 == nil {
		if err := builtin.New(d.opts.Builtin).Check(req); err != nil {
			return results.Measurement{}, err
		}
	}
	job, err := d.job(req)
	if err != nil {
		return results.Measurement{}, err
	}
	jobs := d.c.Core.BatchV1().Jobs(d.opts.Namespace)
	if _, err := jobs.Create(ctx, job, metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
		return results.Measurement{}, fmt.Errorf("create load job %s: %w", job.Name, err)
	}
	defer func() {
		if derr := d.delete(ctx, job.Name); derr != nil && err == nil {
			err = derr
		}
	}()
	pod, err := d.started(ctx, job.Name)
	if err != nil {
		return results.Measurement{}, err
	}
	node := &results.NodeInfo{ID: pod.Spec.NodeName, Hostname: pod.Spec.NodeName}
	where := "job " + job.Name

	out := make(chan remote.Output, 1)
	fctx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	go func() { out <- d.read(fctx, pod.Name, true, req.Interval) }()
	deadline := time.NewTimer(req.Duration + endGrace)
	defer deadline.Stop()
	stop := req.Stop
	for {
		select {
		case <-ctx.Done():
			stopFollow()
			<-out
			return results.Measurement{}, fmt.Errorf("remote load: %w", ctx.Err())
		case <-stop:
			stop = nil
			if err := d.suspend(ctx, job.Name); err != nil {
				stopFollow()
				<-out
				return results.Measurement{}, err
			}
		case o := <-out:
			if !o.Found {
				// the stream ended without the last frame (a log rotated,
				// the connection cut): read the whole log once more
				o = d.read(ctx, pod.Name, false, nil)
			}
			if o.Found {
				return o.Measurement(where, node, req.Dir)
			}
			if o.Err != nil {
				return results.Measurement{}, onNode(ctx, d.c, node.ID, fmt.Errorf("read log of load pod %s: %w", pod.Name, o.Err))
			}
			return results.Measurement{}, onNode(ctx, d.c, node.ID,
				fmt.Errorf("%w: %s: %s; last output: %q", remote.ErrNoResult, where, d.podState(ctx, pod.Name), o.Tail))
		case <-deadline.C:
			stopFollow()
			<-out
			// a result that does not come: its node's kubelet may be gone
			return results.Measurement{}, onNode(ctx, d.c, node.ID, fmt.Errorf("%s on node %s: %w", where, node.ID, remote.ErrTimeout))
		}
	}
}

// job is the Job that runs one phase, its request in the pod's
// environment; an error when the request cannot travel (remote's
// Request.Encode).
func (d *Driver) job(req sweep.LoadRequest) (*batchv1.Job, error) {
	r := remote.NewRequest(req, d.opts.Builtin)
	if d.opts.K6 != nil {
		var err error
		if r, err = d.opts.K6.Request(req); err != nil {
			return nil, err
		}
	}
	env, err := r.Encode()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "sweep-load-" + hex.EncodeToString(b)
	phase := "measure"
	if req.Warmup {
		phase = "warmup"
	}
	labels := merge(d.opts.Labels, map[string]string{LabelLoad: phase})
	zero := int32(0)
	// the Job's own deadline: the phase, the start and the grace, so a
	// load left behind by a crashed sweep ends by itself
	deadline := int64((d.opts.StartTimeout + req.Duration + endGrace) / time.Second)
	grace := int64(10)
	if d.opts.K6 != nil {
		grace = 30 // k6 stops, then writes its summary
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: d.opts.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:          &zero,
			ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                 corev1.RestartPolicyNever,
					NodeSelector:                  d.opts.NodeSelector,
					TerminationGracePeriodSeconds: &grace,
					EnableServiceLinks:            new(bool),
					Containers: []corev1.Container{{
						Name:            "load",
						Image:           d.opts.Image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         d.opts.Command,
						Env:             []corev1.EnvVar{{Name: remote.RequestEnv, Value: env}},
					}},
				},
			},
		},
	}
	if d.opts.K6 != nil {
		d.k6Pod(&job.Spec.Template.Spec)
	}
	return job, nil
}

// k6Pod makes the load's pod spec run k6: an init container from the
// load image installs sweep into the shared emptyDir, from which the
// load's container, from the k6 image, runs `sweep drive`.
func (d *Driver) k6Pod(spec *corev1.PodSpec) {
	mount := []corev1.VolumeMount{{Name: k6Volume, MountPath: remote.K6Mount}}
	spec.Volumes = []corev1.Volume{{Name: k6Volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	spec.InitContainers = []corev1.Container{{
		Name:            "sweep",
		Image:           d.opts.Image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         remote.InstallCommand(d.opts.Command),
		VolumeMounts:    mount,
	}}
	load := &spec.Containers[0]
	load.Image = d.opts.K6.Image
	load.Command = remote.K6Command()
	load.VolumeMounts = mount
}

// started waits until the Job's pod runs (or has already ended) and
// returns it.
func (d *Driver) started(ctx context.Context, job string) (*corev1.Pod, error) {
	var pod *corev1.Pod
	stuck := stuckPods{now: time.Now}
	err := poll(ctx, d.opts.StartTimeout, func() (bool, error) {
		l, err := d.c.Core.CoreV1().Pods(d.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job})
		if err != nil {
			return false, err
		}
		if err := stuck.check(l.Items); err != nil {
			return false, err
		}
		for i := range l.Items {
			p := &l.Items[i]
			if p.Status.Phase != corev1.PodPending && p.Status.Phase != "" {
				pod = p
				return true, nil
			}
			pod = p
		}
		return false, nil
	})
	if err == nil {
		return pod, nil
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		why := "no pod"
		if pod != nil {
			why = describePod(pod)
		}
		return nil, fmt.Errorf("load job %s did not start within %s: %s", job, d.opts.StartTimeout, why)
	}
	return nil, fmt.Errorf("load job %s: %w", job, err)
}

// read reads the pod's log through remote's frame parser (following it
// or not).
func (d *Driver) read(ctx context.Context, pod string, follow bool, onInterval func(results.Interval)) remote.Output {
	rc, err := d.c.Core.CoreV1().Pods(d.opts.Namespace).GetLogs(pod, &corev1.PodLogOptions{Container: "load", Follow: follow}).Stream(ctx)
	if err != nil {
		return remote.Output{Err: err}
	}
	defer rc.Close()
	o := remote.ReadOutput(rc, onInterval)
	if errors.Is(o.Err, io.ErrUnexpectedEOF) && !o.Found {
		o.Err = nil
	}
	return o
}

// suspend stops the Job: its controller deletes the running pod
// (SIGTERM, then the grace period) and starts no other.
func (d *Driver) suspend(ctx context.Context, job string) error {
	patch := []byte(`{"spec":{"suspend":true}}`)
	_, err := d.c.Core.BatchV1().Jobs(d.opts.Namespace).Patch(ctx, job, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return fmt.Errorf("stop load job %s: %w", job, err)
	}
	return nil
}

// podState says where the load's pod stands, for an error.
func (d *Driver) podState(ctx context.Context, pod string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), podStateTimeout)
	defer cancel()
	p, err := d.c.Core.CoreV1().Pods(d.opts.Namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	return describePod(p)
}

// delete removes the Job and its pod, also after ctx is cancelled.
func (d *Driver) delete(ctx context.Context, job string) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteTimeout)
	defer cancel()
	bg := metav1.DeletePropagationBackground
	err := d.c.Core.BatchV1().Jobs(d.opts.Namespace).Delete(dctx, job, metav1.DeleteOptions{PropagationPolicy: &bg})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete load job %s: %w", job, err)
	}
	return nil
}
