/** The core's module, under the path sdk/web's tests and modules have always used. */
export * from '../../core/src/clock';
