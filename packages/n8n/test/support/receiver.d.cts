export interface Delivery {
	method: string;
	url: string;
	headers: Record<string, string>;
	rawBody: string;
}
export interface Receiver {
	url: string;
	deliveries: Delivery[];
	/** The first delivery not handed out yet that matches, waiting for one if none has arrived. */
	next(timeoutMs?: number, match?: (delivery: Delivery) => boolean): Promise<Delivery>;
	close(): Promise<void>;
}
export function startReceiver(options?: { status?: number }): Promise<Receiver>;
