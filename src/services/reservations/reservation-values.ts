import type { ReservationInput } from "../../schemas/reservations";

/**
 * What E11 stores from its input, shared by its two paths (import-reservation.ts's interactive
 * transaction and import-in-one-request.ts's batch).
 */

/** The row's stored fields from the input: a PUT, so a field left out is cleared. */
export function reservationValues(input: ReservationInput) {
  return {
    experienceId: input.experienceId,
    date: input.date,
    time: input.time,
    state: input.state ?? null,
    giftId: input.giftId ?? null,
    guestCount01: input.guestCount01 ?? null,
    guestCountTotal: input.guestCountTotal ?? null,
    discountTotalCents: input.discountTotalCents ?? null,
    dueTotalCents: input.dueTotalCents ?? null,
    grossTotalCents: input.grossTotalCents ?? null,
    netTotalCents: input.netTotalCents ?? null,
    manualDiscountTotalCents: input.manualDiscountTotalCents ?? null,
    paidTotalCents: input.paidTotalCents ?? null,
    // As sent; left out, true when the import records an in-house payment (paidAt is then set).
    paid: input.paid ?? ((input.paidTotalCents ?? 0) > 0 ? true : null),
    languageIso: input.languageIso ?? null,
    message: input.message ?? null,
    origin: input.origin ?? null,
    paymentCurrency: input.paymentCurrency ?? null,
    additionalQuestionAnswers: input.additionalQuestionAnswers ?? null,
    experienceTitleTranslations: input.experienceTitleTranslations ?? null,
    optionalData: input.optionalData ?? null,
    otherData: input.otherData ?? null,
  };
}

export function priceItemRows(wineryId: string, reservationId: string, input: ReservationInput) {
  const items = [
    ...(input.experiencePriceExtras ?? []).map((item) => ({ item, kind: "EXTRA", islabel1: null })),
    ...(input.experiencePriceLabels ?? []).map((item) => ({
      item,
      kind: "LABEL",
      islabel1: item.islabel1 ?? null,
    })),
  ];
  return items.map(({ item, kind, islabel1 }, sortOrder) => ({
    wineryId,
    reservationId,
    kind,
    sortOrder,
    islabel1,
    itemId: item.id ?? null,
    position: item.position ?? null,
    experienceId: item.experience_id ?? null,
    priceCents: item.price_cents ?? null,
    priceCurrency: item.price_currency ?? null,
    quantity: item.quantity ?? null,
    titleTranslations: item.title_translations ?? null,
    itemCreatedAt: item.created_at ?? null,
    itemUpdatedAt: item.updated_at ?? null,
  }));
}
