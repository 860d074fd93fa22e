package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// ErrNoService: a host named for a port-forward is not a Service of the
// run's namespace.
var ErrNoService = errors.New("not a Service of the run")

// Forward is a port-forward from 127.0.0.1 to a ready pod behind a
// Service of the run: Addr is the local end (127.0.0.1:PORT). It follows
// the Service: when the pod goes (a restart, a replacement), it forwards
// the same local port to the Service's next ready pod.
type Forward struct {
	Addr   string
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
}

// Close stops the forward and returns the error that ended it, if any
// other than the stop: the loss of a pod the forward has not replaced by
// the Service's next one.
func (f *Forward) Close() error {
	f.cancel()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Forward opens a port-forward to port of Service svc (a Service's port,
// as a pod of the namespace dials svc:port) through the API server, on a
// free local port of 127.0.0.1. host may be the Service's name or
// name.namespace[.svc[.cluster.local]] of the run's namespace; anything
// else wraps ErrNoService.
func (s *Stack) Forward(ctx context.Context, host string, port int) (*Forward, error) {
	svc, err := s.serviceOf(host)
	if err != nil {
		return nil, err
	}
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &Forward{cancel: cancel, done: make(chan struct{})}
	ready := make(chan string, 1)
	first := make(chan error, 1)
	go func() {
		defer close(f.done)
		local := 0
		for fctx.Err() == nil {
			err := s.forwardOnce(fctx, svc, port, &local, ready, func() {
				f.mu.Lock()
				f.err = nil // forwarding again: a pod lost before is no error
				f.mu.Unlock()
			})
			if local == 0 { // never listened: the caller hears it
				first <- err
				return
			}
			if fctx.Err() != nil {
				return
			}
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
			select { // the pod went; the Service's next one, in a moment
			case <-fctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	select {
	case addr := <-ready:
		f.Addr = addr
		return f, nil
	case err := <-first:
		cancel()
		return nil, err
	case <-ctx.Done():
		cancel()
		<-f.done
		return nil, fmt.Errorf("port-forward to %s:%d: %w", svc, port, ctx.Err())
	}
}

// serviceOf is the Service host names in the run's namespace.
func (s *Stack) serviceOf(host string) (string, error) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && (parts[1] != s.ns || (len(parts) > 2 && parts[2] != "svc")) {
		return "", fmt.Errorf("%w: %s is not in the run's namespace %s", ErrNoService, host, s.ns)
	}
	for _, o := range s.objs {
		if o.GetKind() == "Service" && o.GetName() == parts[0] {
			return parts[0], nil
		}
	}
	return "", fmt.Errorf("%w: the manifests have no Service %s", ErrNoService, parts[0])
}

// forwardOnce forwards *local (0: a free port, then set) to port of a
// ready pod of Service svc until the connection to the pod is lost or ctx
// ends; the first time it listens, it sends the address on ready, and
// each time it calls up.
func (s *Stack) forwardOnce(ctx context.Context, svc string, port int, local *int, ready chan<- string, up func()) error {
	pod, target, err := s.podPort(ctx, svc, port)
	if err != nil {
		return err
	}
	url := s.c.Core.CoreV1().RESTClient().Post().Resource("pods").Namespace(s.ns).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(s.c.Config)
	if err != nil {
		return fmt.Errorf("port-forward to %s: %w", svc, err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	listening := make(chan struct{})
	fw, err := portforward.NewOnAddressesWithContext(ctx, dialer, []string{"127.0.0.1"},
		[]string{fmt.Sprintf("%d:%d", *local, target)}, listening, io.Discard, io.Discard)
	if err != nil {
		return fmt.Errorf("port-forward to %s: %w", svc, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	select {
	case <-listening:
	case err := <-errc:
		return fmt.Errorf("port-forward to pod %s of %s, port %d: %w", pod, svc, target, err)
	case <-ctx.Done(): // the forwarder ends with ctx too
		fw.Close()
		<-errc
		return fmt.Errorf("port-forward to pod %s of %s, port %d: %w", pod, svc, target, ctx.Err())
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		fw.Close()
		<-errc
		return fmt.Errorf("port-forward to %s: its local port: %v", svc, err)
	}
	if *local == 0 {
		*local = int(ports[0].Local)
		ready <- "127.0.0.1:" + strconv.Itoa(*local)
	}
	up()
	return <-errc
}

// podPort is a ready pod of Service svc and the container port its port
// reaches.
func (s *Stack) podPort(ctx context.Context, svc string, port int) (string, int, error) {
	sv, err := s.c.Core.CoreV1().Services(s.ns).Get(ctx, svc, metav1.GetOptions{})
	if err != nil {
		return "", 0, fmt.Errorf("service %s: %w", svc, err)
	}
	var sp *corev1.ServicePort
	for i := range sv.Spec.Ports {
		if int(sv.Spec.Ports[i].Port) == port {
			sp = &sv.Spec.Ports[i]
		}
	}
	if sp == nil {
		var have []string
		for _, p := range sv.Spec.Ports {
			have = append(have, strconv.Itoa(int(p.Port)))
		}
		return "", 0, fmt.Errorf("service %s has no port %d (it has %s)", svc, port, strings.Join(have, ", "))
	}
	if len(sv.Spec.Selector) == 0 {
		return "", 0, fmt.Errorf("service %s selects no pods (no selector): sweep forwards only to a Service's pods", svc)
	}
	pods, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(sv.Spec.Selector).String()})
	if err != nil {
		return "", 0, fmt.Errorf("pods of service %s: %w", svc, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !podReady(p) {
			continue
		}
		if sp.TargetPort.IntValue() > 0 {
			return p.Name, sp.TargetPort.IntValue(), nil
		}
		if sp.TargetPort.String() == "" || sp.TargetPort.String() == "0" {
			return p.Name, port, nil
		}
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == sp.TargetPort.String() {
					return p.Name, int(cp.ContainerPort), nil
				}
			}
		}
		return "", 0, fmt.Errorf("pod %s of service %s has no port named %s", p.Name, svc, sp.TargetPort.String())
	}
	return "", 0, fmt.Errorf("service %s has no ready pod", svc)
}
