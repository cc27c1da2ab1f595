package testworld

import (
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/vtime"
)

// Fault fails the next Count requests that match Verb, Kind and Subresource (and Client when
// set) with a Conflict or an InternalError, and leaves a "test fault" trace line for each.
type Fault struct {
	w           *World
	Client      string
	Verb        model.Verb
	Kind        model.Kind
	Subresource string
	Count       int
	Conflict    bool
}

// Intercept implements apiserver.Fault.
func (f *Fault) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if f.Count <= 0 || req.Verb != f.Verb || req.Kind != f.Kind || req.Subresource != f.Subresource {
		return 0, nil
	}
	if f.Client != "" && req.Client != f.Client {
		return 0, nil
	}
	f.Count--
	gr := schema.GroupResource{Resource: string(req.Kind)}
	var err error
	if f.Conflict {
		err = apierrors.NewConflict(gr, req.Name, fmt.Errorf("injected conflict"))
	} else {
		err = apierrors.NewInternalError(fmt.Errorf("injected failure"))
	}
	f.w.Note("fault", string(req.Kind)+" "+model.KeyOf(req.Namespace, req.Name), string(req.Verb)+" "+err.Error())
	return 0, err
}

// AddFault installs f (failing its next f.Count matching requests) on the server.
func (w *World) AddFault(f *Fault) {
	f.w = w
	w.Server.AddFault(f)
}

func parseFault(verb, kind, subresource, count, kindOfErr, client string) (*Fault, error) {
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("fault count must be a positive number, got %q", count)
	}
	if kindOfErr != "conflict" && kindOfErr != "internal" {
		return nil, fmt.Errorf("fault error must be conflict or internal, got %q", kindOfErr)
	}
	return &Fault{
		Client: client, Verb: model.Verb(verb), Kind: model.Kind(kind), Subresource: subresource,
		Count: n, Conflict: kindOfErr == "conflict",
	}, nil
}
