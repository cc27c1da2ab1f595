package client

import (
	"context"
	"fmt"

	"github.com/reconsim/reconsim/model"
)

// kindOf returns the kind of the object type T (a pointer type such as *model.Pod). The
// model's GetKind methods do not dereference their receiver, so a nil T answers.
func kindOf[T model.Object]() model.Kind {
	var zero T
	return zero.GetKind()
}

func as[T model.Object](obj model.Object) (T, error) {
	t, ok := obj.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("client: got %T, want %T", obj, zero)
	}
	return t, nil
}

// asResult is as for the result of a request: the request's error, if any, or obj as T.
func asResult[T model.Object](obj model.Object, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return as[T](obj)
}

// GetAs is Client.Get for the kind of T, returning a *model.Pod etc. directly.
func GetAs[T model.Object](ctx context.Context, c *Client, namespace, name string) (T, error) {
	return asResult[T](c.Get(ctx, kindOf[T](), namespace, name))
}

// GetSharedAs is Client.GetShared for the kind of T: the stored object itself, which the caller
// only reads (docs/architecture.md, "Object ownership").
func GetSharedAs[T model.Object](ctx context.Context, c *Client, namespace, name string) (T, error) {
	return asResult[T](c.GetShared(ctx, kindOf[T](), namespace, name))
}

// ListAs is Client.List for the kind of T.
func ListAs[T model.Object](ctx context.Context, c *Client, opts model.ListOptions) ([]T, uint64, error) {
	objs, rv, err := c.List(ctx, kindOf[T](), opts)
	if err != nil {
		return nil, 0, err
	}
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		t, err := as[T](obj)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, rv, nil
}

// CreateAs is Client.Create returning the stored object as T.
func CreateAs[T model.Object](ctx context.Context, c *Client, obj T) (T, error) {
	return asResult[T](c.Create(ctx, obj))
}

// UpdateAs is Client.Update returning the stored object as T.
func UpdateAs[T model.Object](ctx context.Context, c *Client, obj T) (T, error) {
	return asResult[T](c.Update(ctx, obj))
}

// UpdateStatusAs is Client.UpdateStatus returning the stored object as T.
func UpdateStatusAs[T model.Object](ctx context.Context, c *Client, obj T) (T, error) {
	return asResult[T](c.UpdateStatus(ctx, obj))
}

// UpdateStatusSharedAs is Client.UpdateStatusShared returning the stored object as T: obj is
// handed over, and the caller only reads it and the answer afterwards.
func UpdateStatusSharedAs[T model.Object](ctx context.Context, c *Client, obj T) (T, error) {
	return asResult[T](c.UpdateStatusShared(ctx, obj))
}
