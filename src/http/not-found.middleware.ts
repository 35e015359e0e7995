/**
 * Requests no route answered: 404 in the NestJS shape clients of the original service
 * know (`Cannot GET /path`), rendered by the error middleware like every other error.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../../kernel/errors/app-error.js';

/** Mounted after every router. */
export function notFoundMiddleware(): RequestHandler {
  return (req, _res, next) => {
    // Path only: query strings may carry tokens that should not be echoed back.
    const path = req.originalUrl.split('?')[0] ?? req.path;
    next(new AppError('RESOURCE_NOT_FOUND', `Cannot ${req.method} ${path}`, { envelope: 'standard' }));
  };
}
