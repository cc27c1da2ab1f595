package model

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// core/v1 Service and discovery.k8s.io/v1 EndpointSlice: field names and JSON names as in
// k8s.io/api core/v1/types.go and discovery/v1/types.go, reduced to what the simulator models.

// ---- Service ----

// Service is core/v1 Service.
type Service struct {
	ObjectMeta `json:"metadata"`
	Spec       ServiceSpec   `json:"spec,omitempty"`
	Status     ServiceStatus `json:"status,omitempty"`
}

// Service types ([api@HEAD] core/v1/types.go ServiceType).
const (
	ServiceTypeClusterIP    = "ClusterIP"
	ServiceTypeNodePort     = "NodePort"
	ServiceTypeLoadBalancer = "LoadBalancer"
	ServiceTypeExternalName = "ExternalName"
)

// Protocols ([api@HEAD] core/v1/types.go Protocol).
const (
	ProtocolTCP  = "TCP"
	ProtocolUDP  = "UDP"
	ProtocolSCTP = "SCTP"
)

// ServiceSpec is core/v1 ServiceSpec. A nil or empty Selector means the Service's endpoints
// are managed by someone else (the EndpointSlice controller leaves it alone).
type ServiceSpec struct {
	Ports                    []ServicePort     `json:"ports,omitempty"`
	Selector                 map[string]string `json:"selector,omitempty"`
	ClusterIP                string            `json:"clusterIP,omitempty"`
	Type                     string            `json:"type,omitempty"`
	PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses,omitempty"`
}

// ServicePort is core/v1 ServicePort.
type ServicePort struct {
	Name       string             `json:"name,omitempty"`
	Protocol   string             `json:"protocol,omitempty"`
	Port       int32              `json:"port"`
	TargetPort intstr.IntOrString `json:"targetPort,omitempty"`
}

// ServiceStatus is core/v1 ServiceStatus; the load balancer status is not modelled, so it is
// empty, and present so that Service has a status like upstream's.
type ServiceStatus struct{}

// ---- EndpointSlice ----

// LabelServiceName is the label naming the Service an EndpointSlice belongs to
// ([api@HEAD] discovery/v1/well_known_labels.go LabelServiceName).
const LabelServiceName = "kubernetes.io/service-name"

// LabelManagedBy names the controller that manages an EndpointSlice
// ([api@HEAD] discovery/v1/well_known_labels.go LabelManagedBy).
const LabelManagedBy = "endpointslice.kubernetes.io/managed-by"

// Address types ([api@HEAD] discovery/v1/types.go AddressType).
const (
	AddressTypeIPv4 = "IPv4"
	AddressTypeIPv6 = "IPv6"
	AddressTypeFQDN = "FQDN"
)

// EndpointSlice is discovery.k8s.io/v1 EndpointSlice.
type EndpointSlice struct {
	ObjectMeta  `json:"metadata"`
	AddressType string         `json:"addressType"`
	Endpoints   []Endpoint     `json:"endpoints"`
	Ports       []EndpointPort `json:"ports"`
}

// Endpoint is discovery/v1 Endpoint.
type Endpoint struct {
	Addresses  []string           `json:"addresses"`
	Conditions EndpointConditions `json:"conditions,omitempty"`
	TargetRef  *ObjectReference   `json:"targetRef,omitempty"`
	NodeName   *string            `json:"nodeName,omitempty"`
}

// EndpointConditions is discovery/v1 EndpointConditions: nil means unknown (consumers treat
// a nil Ready as ready).
type EndpointConditions struct {
	Ready       *bool `json:"ready,omitempty"`
	Serving     *bool `json:"serving,omitempty"`
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointPort is discovery/v1 EndpointPort.
type EndpointPort struct {
	Name     *string `json:"name,omitempty"`
	Protocol *string `json:"protocol,omitempty"`
	Port     *int32  `json:"port,omitempty"`
}

// ---- Object methods and deep copies ----

func (o *Service) GetKind() Kind       { return KindService }
func (o *EndpointSlice) GetKind() Kind { return KindEndpointSlice }

func (o *Service) DeepCopyObject() Object       { return o.DeepCopy() }
func (o *EndpointSlice) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *Service) DeepCopy() *Service {
	out := copyWithMeta(o)
	out.Spec.Ports = copySlice(o.Spec.Ports)
	out.Spec.Selector = copyMap(o.Spec.Selector)
	return out
}

// DeepCopy returns a deep copy.
func (o *EndpointSlice) DeepCopy() *EndpointSlice {
	out := copyWithMeta(o)
	out.Endpoints = copyEach(o.Endpoints, func(e Endpoint) Endpoint {
		e.Addresses = copySlice(e.Addresses)
		e.Conditions = EndpointConditions{
			Ready:       CopyPtr(e.Conditions.Ready),
			Serving:     CopyPtr(e.Conditions.Serving),
			Terminating: CopyPtr(e.Conditions.Terminating),
		}
		e.TargetRef = CopyPtr(e.TargetRef)
		e.NodeName = CopyPtr(e.NodeName)
		return e
	})
	out.Ports = copyEach(o.Ports, func(p EndpointPort) EndpointPort {
		return EndpointPort{Name: CopyPtr(p.Name), Protocol: CopyPtr(p.Protocol), Port: CopyPtr(p.Port)}
	})
	return out
}
