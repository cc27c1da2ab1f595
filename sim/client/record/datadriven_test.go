package record

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// eventArgs builds the event a script line describes:
//
//	[obj=pod-a] [kind=Pod] [type=Normal] [source=kubelet] [host=] reason=R [message=M]
func eventArgs(t *testing.T, td *datadriven.TestData, names *Names, now vtime.Time) *model.Event {
	obj, kind, typ, source, host, reason, message := "pod-a", "Pod", model.EventTypeNormal, "kubelet", "", "", ""
	td.MaybeScanArgs(t, "obj", &obj)
	td.MaybeScanArgs(t, "kind", &kind)
	td.MaybeScanArgs(t, "type", &typ)
	td.MaybeScanArgs(t, "source", &source)
	td.MaybeScanArgs(t, "host", &host)
	td.ScanArgs(t, "reason", &reason)
	td.MaybeScanArgs(t, "message", &message)
	ns := "default"
	if kind == string(model.KindNode) {
		ns = ""
	}
	return &model.Event{
		ObjectMeta:     model.ObjectMeta{Name: names.name(obj, now), Namespace: "default"},
		InvolvedObject: model.ObjectReference{Kind: model.Kind(kind), Namespace: ns, Name: obj, UID: "uid-" + obj, APIVersion: "v1"},
		Reason:         reason, Message: message, Type: typ,
		Source:         model.EventSource{Component: source, Host: host},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: source, ReportingInstance: host,
	}
}

func scanDuration(t *testing.T, td *datadriven.TestData, key string) (time.Duration, bool) {
	if !td.HasArg(key) {
		return 0, false
	}
	var s string
	td.ScanArgs(t, key, &s)
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s: %s=%q: %v", td.Pos, key, s, err)
	}
	return d, true
}

// TestCorrelatorScript runs testdata/correlator/*.txt against the Correlator alone (client-go
// tools/record/events_cache.go EventCorrelator.EventCorrelate: EventAggregator.EventAggregate,
// eventLogger.eventObserve, EventSourceObjectSpamFilter.Filter). Commands:
//
//	advance d=<duration>                          move the clock
//	correlate [n=<count>] [message-n] <event args> correlate n events (message-n: append
//	                                              " <i>" to the message, i = 1..n, to make
//	                                              distinct messages); one line per result
func TestCorrelatorScript(t *testing.T) {
	datadriven.Walk(t, "testdata/correlator", func(t *testing.T, path string) {
		clock := &vtime.ManualClock{}
		names := NewNames()
		c := NewCorrelator(clock, CorrelatorOptions{}, names)
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "advance":
				d, ok := scanDuration(t, td, "d")
				if !ok {
					t.Fatalf("%s: advance needs d=", td.Pos)
				}
				clock.T = clock.T.Add(d)
				return fmt.Sprintf("now=%s\n", clock.T.Duration())
			case "correlate":
				n := 1
				td.MaybeScanArgs(t, "n", &n)
				var b strings.Builder
				for i := 1; i <= n; i++ {
					ev := eventArgs(t, td, names, clock.T)
					if td.HasArg("message-n") {
						ev.Message += fmt.Sprintf("-%d", i)
					}
					r := c.EventCorrelate(ev)
					switch {
					case r.Skip:
						fmt.Fprintf(&b, "%d: skip (spam filter)\n", i)
					case r.Event.Count > 1:
						fmt.Fprintf(&b, "%d: patch %s count=%d first=%s %s\n", i, r.Event.Name, r.Event.Count, r.Event.FirstTimestamp.Duration(), r.Patch)
					default:
						fmt.Fprintf(&b, "%d: create %s %q\n", i, r.Event.Name, r.Event.Message)
					}
				}
				return b.String()
			}
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			return ""
		})
	})
}

// unreachable fails every request of one client with a transport error (not an API status),
// as a network partition does.
type unreachable struct{ client string }

func (f *unreachable) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if req.Client != f.client {
		return 0, nil
	}
	return time.Second, errors.New("connection refused")
}

// TestBroadcasterScript runs testdata/broadcaster/*.txt: a Broadcaster writing through a
// throttled client to a simulated API server (client-go tools/record/event.go
// StartRecordingToSink, recordToSink, recordEvent). Commands:
//
//	init [qps=<f>] [burst=<n>] [queue=<n>]      a fresh world; the client's QPS and burst, the
//	                                            broadcaster's queue length
//	record [n=<count>] [message-n] <event args> Eventf n times now (event args as
//	                                            TestCorrelatorScript; the object is a Pod in
//	                                            default, or a Node with kind=Node)
//	run for=<duration>                          run the kernel
//	partition on|off                            the client's requests fail with a transport error
//	events                                      the Events the API server stores
//	stats                                       the broadcaster's counters and the client's requests
func TestBroadcasterScript(t *testing.T) {
	datadriven.Walk(t, "testdata/broadcaster", func(t *testing.T, path string) {
		var k *sim.Kernel
		var srv *apiserver.Server
		var c *client.Client
		var b *Broadcaster
		fault := &unreachable{client: "component"}
		recorders := map[string]Recorder{}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "init":
				qps, burst, queue := 5.0, 10, 0
				td.MaybeScanArgs(t, "qps", &qps)
				td.MaybeScanArgs(t, "burst", &burst)
				td.MaybeScanArgs(t, "queue", &queue)
				k = sim.New(1)
				cfg := apiserver.DefaultConfig()
				cfg.ServiceTime[model.VerbCreate] = sim.Constant(5 * time.Millisecond)
				cfg.ServiceTime[model.VerbPatch] = sim.Constant(5 * time.Millisecond)
				srv = apiserver.NewServer(k, cfg)
				c = client.New(srv, "component", client.Config{QPS: qps, Burst: burst})
				b = NewBroadcaster(k, c, "component", Config{MaxQueuedEvents: queue})
				clear(recorders)
				return "ok\n"
			}
			if k == nil {
				t.Fatalf("%s: the first command must be init", td.Pos)
			}
			switch td.Cmd {
			case "record":
				n := 1
				td.MaybeScanArgs(t, "n", &n)
				for i := 1; i <= n; i++ {
					ev := eventArgs(t, td, NewNames(), k.Now())
					key := ev.Source.Component + "/" + ev.Source.Host
					r, ok := recorders[key]
					if !ok {
						r = b.NewRecorder(ev.Source.Component, ev.Source.Host)
						recorders[key] = r
					}
					var obj model.Object = &model.Pod{ObjectMeta: model.ObjectMeta{Name: ev.InvolvedObject.Name, Namespace: "default", UID: ev.InvolvedObject.UID}}
					if ev.InvolvedObject.Kind == model.KindNode {
						obj = &model.Node{ObjectMeta: model.ObjectMeta{Name: ev.InvolvedObject.Name, UID: ev.InvolvedObject.UID}}
					}
					msg := ev.Message
					if td.HasArg("message-n") {
						msg += fmt.Sprintf("-%d", i)
					}
					r.Eventf(obj, ev.Type, ev.Reason, "%s", msg)
				}
				return fmt.Sprintf("queued=%d\n", b.QueueLength())
			case "run":
				d, ok := scanDuration(t, td, "for")
				if !ok {
					t.Fatalf("%s: run needs for=", td.Pos)
				}
				until := k.Now().Add(d)
				out := k.Run(sim.Limits{MaxTime: until})
				if out.Err != nil {
					t.Fatalf("%s: %v", td.Pos, out.Err)
				}
				if out.Reason == sim.StopDrained {
					// Nothing left to do before until: the clock still moves there.
					k.Schedule(until, sim.HandlerFunc(func(uint64) {}), 0, false)
					k.Run(sim.Limits{MaxTime: until})
				}
				return fmt.Sprintf("now=%s\n", k.Now().Duration())
			case "partition":
				if td.CmdArgs[0].Key == "on" {
					srv.AddFault(fault)
				} else {
					srv.RemoveFault(fault)
				}
				return "ok\n"
			case "events":
				objs, _, err := srv.Store().List(model.KindEvent, model.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var sb strings.Builder
				for _, o := range objs {
					ev := o.(*model.Event)
					fmt.Fprintf(&sb, "%s/%s count=%d first=%s last=%s %s %q\n", ev.Namespace, ev.Name, ev.Count,
						ev.FirstTimestamp.Duration(), ev.LastTimestamp.Duration(), ev.Reason, ev.Message)
				}
				if sb.Len() == 0 {
					return "none\n"
				}
				return sb.String()
			case "stats":
				s := b.Stats()
				cs := c.Stats()
				return fmt.Sprintf("queued=%d dropped=%d skipped=%d created=%d patched=%d retries=%d abandoned=%d max-queue=%d\nclient: create=%d patch=%d throttled=%s\n",
					s.Queued, s.Dropped, s.Skipped, s.Created, s.Patched, s.Retries, s.Abandoned, s.MaxQueueLength,
					cs.RequestsFor(model.VerbCreate), cs.RequestsFor(model.VerbPatch), cs.Throttle.ThrottledTotal)
			}
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			return ""
		})
	})
}
